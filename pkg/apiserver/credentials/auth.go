package credentials

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
)

// Authenticator admits requests carrying the admin bearer token.
type Authenticator struct {
	// sum is the SHA-256 of the token. Comparing fixed-size digests keeps
	// the comparison constant-time even in the token's length.
	sum   [sha256.Size]byte
	valid bool
}

// NewAuthenticator returns an Authenticator for token. An empty token admits
// nobody, so a misconfigured server fails closed.
func NewAuthenticator(token string) *Authenticator {
	return &Authenticator{sum: sha256.Sum256([]byte(token)), valid: token != ""}
}

// Authenticate reports whether r carries "Authorization: Bearer <token>".
func (a *Authenticator) Authenticate(r *http.Request) bool {
	if a == nil || !a.valid || r == nil {
		return false
	}
	// More than one Authorization header is ambiguous; refuse rather than
	// pick one the way some proxy in front of us might not.
	values := r.Header.Values("Authorization")
	if len(values) != 1 {
		return false
	}
	scheme, token, ok := strings.Cut(values[0], " ")
	// RFC 9110 makes the scheme name case-insensitive.
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	token = strings.TrimSpace(token)
	if token == "" {
		return false
	}
	got := sha256.Sum256([]byte(token))
	return subtle.ConstantTimeCompare(got[:], a.sum[:]) == 1
}

// AdminUser is who the admin token authenticates as: a member of
// system:masters, like the admin of a kubeadm cluster.
var AdminUser = authenticationv1.UserInfo{
	Username: "setpoint-admin",
	Groups:   []string{"system:masters", "system:authenticated"},
}

// Identify returns AdminUser for a request carrying the admin token.
func (a *Authenticator) Identify(r *http.Request) (authenticationv1.UserInfo, bool) {
	if !a.Authenticate(r) {
		return authenticationv1.UserInfo{}, false
	}
	return AdminUser, true
}
