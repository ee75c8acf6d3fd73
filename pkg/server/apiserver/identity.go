package apiserver

import (
	"net/http"

	authenticationv1 "k8s.io/api/authentication/v1"
)

// Identifier is an Authenticator that can also say who a request's
// credentials belong to.
type Identifier interface {
	Identify(r *http.Request) (authenticationv1.UserInfo, bool)
}
