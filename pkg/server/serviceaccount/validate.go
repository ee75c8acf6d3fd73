package serviceaccount

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// Leeway is how far past exp, before nbf or iat, and after a bound
// object's deletion kube-apiserver still accepts a token: clocks of the
// issuing and validating servers may differ by that much.
const Leeway = time.Minute

// KeySet holds the public keys tokens are verified with: the current
// signing key's and those of keys being rotated out (or in), so tokens
// from each validate while its key is listed.
type KeySet struct {
	all  []PublicKey
	byID map[string][]PublicKey
}

// NewKeySet lists keys; a key given twice is kept once.
func NewKeySet(keys ...PublicKey) *KeySet {
	s := &KeySet{byID: map[string][]PublicKey{}}
	for _, k := range keys {
		if len(s.byID[k.id]) > 0 {
			continue
		}
		s.all = append(s.all, k)
		s.byID[k.id] = append(s.byID[k.id], k)
	}
	return s
}

// Keys lists the set's keys in the order given, for the JWKS.
func (s *KeySet) Keys() []PublicKey { return slices.Clone(s.all) }

// Validate checks token as kube-apiserver's service account token
// authenticator does, in its order, and returns its claims:
//
//  1. a compact JWS whose (still unverified) iss is one of issuers;
//     otherwise the token is not this server's (see Unrecognized);
//  2. a supported alg (RS256, ES256/384/512; never none or HMAC);
//  3. a signature by a listed key: the keys with the header's kid, or
//     every key when there is no kid; a kid nobody has fails;
//  4. when audiences is not empty, at least one of the token's
//     audiences among them (a token without aud is taken as meant for
//     them, as kube takes one for the server's own audiences);
//     audiences are a TokenReview's spec.audiences, else the server's
//     API audiences;
//  5. exp, nbf and iat against now, give or take Leeway;
//  6. the kubernetes.io claim naming the service account (and the name
//     and uid of any bound object).
//
// Whether those objects still exist is CheckBound's question. Every
// error matches one of the sentinels in errors.go.
func (s *KeySet) Validate(token string, now time.Time, audiences, issuers []string) (*Claims, error) {
	t, err := parseCompact(token)
	if err != nil {
		return nil, err
	}
	var unverified struct {
		Issuer string `json:"iss"`
	}
	if err := json.Unmarshal(t.payload, &unverified); err != nil {
		return nil, refuse(ErrMalformed, "service account token payload is not a JSON object")
	}
	if !slices.Contains(issuers, unverified.Issuer) {
		return nil, refuse(ErrIssuer, fmt.Sprintf("token issuer %q is invalid", unverified.Issuer))
	}
	if err := s.verify(t); err != nil {
		return nil, err
	}
	var w wireClaims
	if err := json.Unmarshal(t.payload, &w); err != nil {
		return nil, &tokenError{kind: ErrClaims, msg: "service account token claims could not be decoded: " + err.Error(), cause: err}
	}
	c := w.claims()
	if len(audiences) > 0 && len(c.MatchAudiences(audiences)) == 0 {
		return nil, refuse(ErrAudience, fmt.Sprintf("token audiences %q is invalid for the target audiences %q", c.Audiences, audiences))
	}
	if err := checkTimes(c, now); err != nil {
		return nil, err
	}
	if err := checkComplete(c); err != nil {
		return nil, err
	}
	return c, nil
}

// verify finds a key that signed t.
func (s *KeySet) verify(t *jws) error {
	// kube's JOSE library's wording, which TokenReviews show.
	const (
		unsupported = "go-jose/go-jose: unknown/unsupported algorithm"
		badSig      = "go-jose/go-jose: error in cryptographic primitive"
	)
	if _, ok := hashFor(t.alg); !ok {
		return refuse(ErrAlgorithm, unsupported)
	}
	keys := s.all
	if t.kid != "" {
		keys = s.byID[t.kid]
	}
	if len(keys) == 0 {
		return refuse(ErrSignature, "invalid signature, no keys found")
	}
	// A header naming another algorithm than the key's must not make
	// the key check a signature of that other kind.
	tried := false
	for _, k := range keys {
		if k.alg != t.alg {
			continue
		}
		tried = true
		if verify(k, t.input, t.signature) {
			return nil
		}
	}
	if !tried {
		return refuse(ErrAlgorithm, unsupported)
	}
	return refuse(ErrSignature, badSig)
}

func checkTimes(c *Claims, now time.Time) error {
	switch {
	case !c.NotBefore.IsZero() && now.Add(Leeway).Before(c.NotBefore):
		return ErrNotYetValid
	case !c.Expiry.IsZero() && now.Add(-Leeway).After(c.Expiry):
		return ErrExpired
	case !c.IssuedAt.IsZero() && now.Add(Leeway).Before(c.IssuedAt):
		return ErrIssuedInFuture
	}
	return nil
}

func checkComplete(c *Claims) error {
	if c.Namespace == "" || c.ServiceAccount.Name == "" || c.ServiceAccount.UID == "" {
		return refuse(ErrClaims, "service account token claims lack the service account's namespace, name or uid")
	}
	bound := []*Ref{c.Pod, c.Secret, c.Node}
	if c.Pod != nil {
		// A pod-bound token only records the pod's node, by name alone
		// when the node did not exist at issue, and kube checks neither.
		bound = bound[:2]
	}
	for _, r := range bound {
		if r != nil && (r.Name == "" || r.UID == "") {
			return refuse(ErrClaims, "service account token claims lack a bound object's name or uid")
		}
	}
	return nil
}

// MatchAudiences returns those of audiences the token is meant for, in
// their order: what a TokenReview reports in status.audiences. A token
// without aud is meant for all of them.
func (c *Claims) MatchAudiences(audiences []string) []string {
	if len(c.Audiences) == 0 {
		return slices.Clone(audiences)
	}
	var out []string
	for _, a := range audiences {
		if slices.Contains(c.Audiences, a) {
			out = append(out, a)
		}
	}
	return out
}
