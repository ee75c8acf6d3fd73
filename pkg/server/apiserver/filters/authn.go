package filters

import (
	"context"
	"net/http"

	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/credentials"
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

// userKey keys the authenticated user in a request's context.
type userKey struct{}

func withUser(ctx context.Context, u authenticationv1.UserInfo) context.Context {
	return context.WithValue(ctx, userKey{}, u)
}

// UserFrom returns the request's authenticated user, if the server knows
// who it is.
func UserFrom(ctx context.Context) (authenticationv1.UserInfo, bool) {
	u, ok := ctx.Value(userKey{}).(authenticationv1.UserInfo)
	return u, ok
}

func isLoopback(ctx context.Context) bool {
	u, ok := UserFrom(ctx)
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
	return r.WithContext(withUser(r.Context(), u)), true
}
