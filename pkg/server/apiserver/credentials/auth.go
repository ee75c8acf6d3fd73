package credentials

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/x509"
	"fmt"
	"net/http"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
)

// Authenticator admits requests carrying the admin bearer token and, when
// set, the server's own loopback token or a client certificate signed by a
// trusted CA.
type Authenticator struct {
	admin    tokenUser
	loopback tokenUser
	// clientCAs verify client certificates; nil admits none.
	clientCAs *x509.CertPool
	// verified remembers the chains clientCAs verified.
	verified *certCache
}

// tokenUser is one bearer token and who it authenticates as.
type tokenUser struct {
	// sum is the SHA-256 of the token. Comparing fixed-size digests keeps
	// the comparison constant-time even in the token's length.
	sum   [sha256.Size]byte
	valid bool
	user  authenticationv1.UserInfo
}

func newTokenUser(token string, user authenticationv1.UserInfo) tokenUser {
	return tokenUser{sum: sha256.Sum256([]byte(token)), valid: token != "", user: user}
}

// NewAuthenticator returns an Authenticator for the admin token. An empty
// token admits nobody, so a misconfigured server fails closed.
func NewAuthenticator(token string) *Authenticator {
	return &Authenticator{admin: newTokenUser(token, AdminUser)}
}

// WithLoopback returns a copy of a that also admits token as LoopbackUser,
// the identity of the server's built-in controllers, with a UID of its own
// as kube-apiserver gives its loopback user. An empty token adds nobody.
func (a *Authenticator) WithLoopback(token string) *Authenticator {
	b := *a
	u := LoopbackUser
	u.UID = newUID()
	b.loopback = newTokenUser(token, u)
	return &b
}

// newUID returns a random UUID (version 4).
func newUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// Authenticate reports whether r carries a client certificate or a
// bearer token that Identify accepts.
func (a *Authenticator) Authenticate(r *http.Request) bool {
	_, ok := a.Identify(r)
	return ok
}

// AdminUser is who the admin token authenticates as: a member of
// system:masters, like the admin of a kubeadm cluster.
var AdminUser = authenticationv1.UserInfo{
	Username: "setpoint-admin",
	Groups:   []string{"system:masters", "system:authenticated"},
}

// LoopbackUsername is the user name of the server's own clients, as
// kube-apiserver names its loopback client.
const LoopbackUsername = "system:apiserver"

// LoopbackUser is who the loopback token authenticates as, in
// kube-apiserver's groups for it. The server tells its own traffic apart
// by this identity (see apiserver's in-flight limits), which is why it is
// not the admin's.
var LoopbackUser = authenticationv1.UserInfo{
	Username: LoopbackUsername,
	Groups:   []string{"system:authenticated", "system:masters"},
}

// Identify returns who a request's credentials belong to: its verified
// client certificate's user first, as kube-apiserver checks certificates
// before tokens, else its bearer token's.
func (a *Authenticator) Identify(r *http.Request) (authenticationv1.UserInfo, bool) {
	if a == nil || r == nil {
		return authenticationv1.UserInfo{}, false
	}
	if u, ok := a.identifyCert(r); ok {
		return u, true
	}
	return a.identifyToken(r)
}

// identifyToken returns who the request's "Authorization: Bearer" token
// belongs to.
func (a *Authenticator) identifyToken(r *http.Request) (authenticationv1.UserInfo, bool) {
	token, ok := BearerToken(r)
	if !ok {
		return authenticationv1.UserInfo{}, false
	}
	return a.IdentifyToken(token)
}

// BearerToken returns the token of r's "Authorization: Bearer" header.
func BearerToken(r *http.Request) (string, bool) {
	// More than one Authorization header is ambiguous; refuse rather than
	// pick one the way some proxy in front of us might not.
	values := r.Header.Values("Authorization")
	if len(values) != 1 {
		return "", false
	}
	scheme, token, ok := strings.Cut(values[0], " ")
	// RFC 9110 makes the scheme name case-insensitive.
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// IdentifyToken returns who a bearer token authenticates as, when it is
// the admin or the loopback token.
func (a *Authenticator) IdentifyToken(token string) (authenticationv1.UserInfo, bool) {
	if a == nil || token == "" {
		return authenticationv1.UserInfo{}, false
	}
	got := sha256.Sum256([]byte(token))
	// Both comparisons always run, so timing does not tell which token
	// was close.
	admin := a.admin.valid && subtle.ConstantTimeCompare(got[:], a.admin.sum[:]) == 1
	loopback := a.loopback.valid && subtle.ConstantTimeCompare(got[:], a.loopback.sum[:]) == 1
	switch {
	case admin:
		return a.admin.user, true
	case loopback:
		return a.loopback.user, true
	}
	return authenticationv1.UserInfo{}, false
}
