package serviceaccount

import "errors"

// Why a token was refused. Validate and CheckBound return errors that
// match exactly one of these under errors.Is, and whose text is
// kube-apiserver's for the same case, since a TokenReview reports it in
// status.error.
var (
	// ErrMalformed: not a compact JWS of this package's shape (three
	// parts, unpadded base64url, JSON header and claims of the right
	// types).
	ErrMalformed = errors.New("service account token is malformed")
	// ErrIssuer: the token's iss is not one the server accepts.
	ErrIssuer = errors.New("service account token issuer is invalid")
	// ErrAlgorithm: the header's alg is none, an HMAC, unknown, or not
	// the algorithm of any key the token could be checked with.
	ErrAlgorithm = errors.New("service account token algorithm is not supported")
	// ErrSignature: no listed public key verifies the signature (or none
	// has the token's key ID).
	ErrSignature = errors.New("service account token signature is invalid")
	// ErrAudience: none of the token's audiences is one asked for.
	ErrAudience = errors.New("service account token audience is invalid")
	// ErrExpired: past exp, beyond the leeway.
	ErrExpired = errors.New("service account token has expired")
	// ErrNotYetValid: before nbf, beyond the leeway.
	ErrNotYetValid = errors.New("service account token is not valid yet")
	// ErrIssuedInFuture: iat is later than now, beyond the leeway.
	ErrIssuedInFuture = errors.New("service account token is issued in the future")
	// ErrClaims: a signed token without the kubernetes.io claims that
	// name its service account (namespace, name, uid) or with a bound
	// object reference lacking its name or uid.
	ErrClaims = errors.New("service account token claims are incomplete")
	// ErrInvalidated: the token is well formed, but its service account
	// or the object it is bound to is gone, replaced (another UID) or
	// deleted for longer than the leeway.
	ErrInvalidated = errors.New("service account token has been invalidated")
)

// tokenError carries kube-apiserver's wording of a refusal while
// matching one of the sentinels above (and, for a Getter's failure, the
// cause as well).
type tokenError struct {
	kind  error
	msg   string
	cause error
}

func (e *tokenError) Error() string { return e.msg }

func (e *tokenError) Unwrap() []error {
	if e.cause != nil {
		return []error{e.kind, e.cause}
	}
	return []error{e.kind}
}

func refuse(kind error, msg string) error { return &tokenError{kind: kind, msg: msg} }

// Unrecognized reports whether err means the token is not a service
// account token of this server at all (not a JWS, or another issuer's),
// rather than one of its tokens that is invalid. kube-apiserver's
// authenticator answers those without an error, so that the next
// authenticator (OIDC, a webhook) may recognize the token; a union of
// authenticators should do the same.
func Unrecognized(err error) bool {
	return errors.Is(err, ErrMalformed) || errors.Is(err, ErrIssuer)
}
