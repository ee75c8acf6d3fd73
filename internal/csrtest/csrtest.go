// Package csrtest makes PKCS#10 certificate requests for tests of the
// CertificateSigningRequest path: the registry's validation, the API's
// admission and the end-to-end signing with kubectl.
package csrtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"testing"
)

// Request returns a request made from tmpl (its subject and names) and
// signed by a new P-256 key, PEM encoded, and that key.
func Request(t testing.TB, tmpl *x509.CertificateRequest) (requestPEM []byte, key *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, tmpl, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}), key
}
