package credentials

import (
	"crypto"
	"crypto/rand"
	"crypto/x509"
	"errors"
	"fmt"
)

// ErrNotLeaf is returned by Sign for a template that asks to be a CA:
// the server's CA signs only end-entity certificates.
var ErrNotLeaf = errors.New("certificate is not a leaf")

// Sign issues the certificate tmpl describes (subject, names, usages,
// validity, serial) for the public key pub, signed by the CA, and
// returns it DER encoded. It is how the built-in CSR signer issues
// certificates without holding the CA's key. The caller keeps the
// validity within NotAfter; tmpl may not be a CA.
func (ca *CA) Sign(tmpl *x509.Certificate, pub crypto.PublicKey) ([]byte, error) {
	if tmpl.IsCA {
		return nil, fmt.Errorf("credentials: %w", ErrNotLeaf)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.kp.cert, pub, ca.kp.key)
	if err != nil {
		return nil, fmt.Errorf("credentials: sign certificate %q: %w", tmpl.Subject.CommonName, err)
	}
	return der, nil
}
