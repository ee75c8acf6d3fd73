package serviceaccount

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/rsa"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
)

// Paths of the OIDC discovery documents kube-apiserver serves for its
// service account issuer.
const (
	OpenIDConfigPath = "/.well-known/openid-configuration"
	JWKSPath         = "/openid/v1/jwks"
)

// How kube-apiserver serves the documents: Cache-Control "public,
// max-age=3600" on both (a new key must be listed that long before it
// signs, for relying parties to have it) and these content types.
const (
	DiscoveryMaxAge         = 3600
	OpenIDConfigContentType = "application/json"
	JWKSContentType         = "application/jwk-set+json"
)

// The discovery document's fields, in kube-apiserver's order.
type openIDConfig struct {
	Issuer        string   `json:"issuer"`
	JWKSURI       string   `json:"jwks_uri"`
	ResponseTypes []string `json:"response_types_supported"`
	SubjectTypes  []string `json:"subject_types_supported"`
	SigningAlgs   []string `json:"id_token_signing_alg_values_supported"`
}

// DiscoveryDocument is /.well-known/openid-configuration for issuer:
// the JWKS's URI, the one response type and subject type Kubernetes
// has (id_token, public), and the sorted algorithms of keys.
func DiscoveryDocument(issuer, jwksURI string, keys []PublicKey) []byte {
	var algs []string
	for _, k := range keys {
		if !slices.Contains(algs, k.alg) {
			algs = append(algs, k.alg)
		}
	}
	slices.Sort(algs)
	return mustJSON(openIDConfig{
		Issuer:        issuer,
		JWKSURI:       jwksURI,
		ResponseTypes: []string{"id_token"},
		SubjectTypes:  []string{"public"},
		SigningAlgs:   algs,
	})
}

// jwk is a public key as kube-apiserver's JOSE library writes it: these
// fields, in this order.
type jwk struct {
	Use string `json:"use"`
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Crv string `json:"crv,omitempty"`
	Alg string `json:"alg"`
	X   string `json:"x,omitempty"`
	Y   string `json:"y,omitempty"`
	N   string `json:"n,omitempty"`
	E   string `json:"e,omitempty"`
}

// JWKS is /openid/v1/jwks: every key, in order, as a signing key
// (use sig) with its kid and alg.
func JWKS(keys []PublicKey) []byte {
	set := struct {
		Keys []jwk `json:"keys"`
	}{Keys: []jwk{}}
	for _, k := range keys {
		set.Keys = append(set.Keys, k.jwk)
	}
	return mustJSON(set)
}

// jwkOf describes pub as a JWK; NewPublicKey calls it once, so that a
// key that cannot be described is refused there.
func jwkOf(pub crypto.PublicKey, id, alg string) (jwk, error) {
	enc := base64.RawURLEncoding.EncodeToString
	j := jwk{Use: "sig", Kid: id, Alg: alg}
	switch pub := pub.(type) {
	case *rsa.PublicKey:
		var e [8]byte
		binary.BigEndian.PutUint64(e[:], uint64(pub.E))
		j.Kty, j.N, j.E = "RSA", enc(pub.N.Bytes()), enc(bytes.TrimLeft(e[:], "\x00"))
	case *ecdsa.PublicKey:
		// The uncompressed point is 04 || X || Y, each coordinate padded
		// to the curve's size as RFC 7518 6.2.1.2 wants.
		point, err := pub.Bytes()
		if err != nil {
			return jwk{}, fmt.Errorf("serviceaccount: public key: %w", err)
		}
		size := (len(point) - 1) / 2
		j.Kty, j.Crv = "EC", pub.Curve.Params().Name
		j.X, j.Y = enc(point[1:1+size]), enc(point[1+size:])
	default:
		return jwk{}, ErrKeyType
	}
	return j, nil
}

// DefaultJWKSURI is the jwks_uri kube-apiserver advertises without
// --service-account-jwks-uri: the JWKS path on its external address
// (host or host:port).
func DefaultJWKSURI(externalAddress string) string {
	return (&url.URL{Scheme: "https", Host: externalAddress, Path: JWKSPath}).String()
}

// ErrDiscoveryIssuer: kube-apiserver serves the discovery documents
// only for an https issuer without query or fragment.
var ErrDiscoveryIssuer = errors.New("issuer URL cannot be served by OIDC discovery")

// ValidateDiscoveryIssuer says whether the discovery documents can be
// served for issuer, in kube's words.
func ValidateDiscoveryIssuer(issuer string) error {
	u, err := url.Parse(issuer)
	switch {
	case issuer == "":
		return fmt.Errorf("%w: empty issuer URL", ErrDiscoveryIssuer)
	case err != nil:
		return fmt.Errorf("%w: %w", ErrDiscoveryIssuer, err)
	case u.Scheme != "https":
		return fmt.Errorf("%w: issuer URL must use https scheme, got: %s", ErrDiscoveryIssuer, issuer)
	case u.RawQuery != "":
		return fmt.Errorf("%w: issuer URL may not include a query, got: %s", ErrDiscoveryIssuer, issuer)
	case u.Fragment != "":
		return fmt.Errorf("%w: issuer URL may not include a fragment, got: %s", ErrDiscoveryIssuer, issuer)
	}
	return nil
}

// mustJSON encodes documents made only of strings; encoding them cannot
// fail.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
