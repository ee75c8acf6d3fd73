package filters

import (
	"context"
	"net/http"

	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/credentials"
	"github.com/setpoint-dev/setpoint/pkg/server/user"
)

// Authenticator decides whether a request carries valid credentials.
type Authenticator interface {
	Authenticate(r *http.Request) bool
}

// identifier is an Authenticator that can also say who a request's
// credentials belong to.
type identifier interface {
	Identify(r *http.Request) (authenticationv1.UserInfo, bool)
}

func isLoopback(ctx context.Context) bool {
	u, ok := user.From(ctx)
	return ok && u.Username == credentials.LoopbackUsername
}

// Authenticate checks r's credentials with a and, when a can say whose
// they are, returns r carrying that user. A nil a lets every request in.
func Authenticate(r *http.Request, a Authenticator) (*http.Request, bool) {
	if a == nil {
		return r, true
	}
	id, ok := a.(identifier)
	if !ok {
		return r, a.Authenticate(r)
	}
	u, ok := id.Identify(r)
	if !ok {
		return r, false
	}
	return r.WithContext(user.WithInfo(r.Context(), u)), true
}
