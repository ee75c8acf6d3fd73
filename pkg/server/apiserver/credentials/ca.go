package credentials

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"errors"
	"fmt"
	"time"
)

// DefaultClientCertValidity is how long a client certificate lasts unless
// asked otherwise: a year, as kubeadm's `kubeconfig user` gives.
const DefaultClientCertValidity = 365 * 24 * time.Hour

var (
	// ErrNoCA is returned by LoadCA for a directory without a CA, before
	// any server has started on it.
	ErrNoCA = errors.New("no CA")
	// ErrNoUser is returned for a client certificate without a user name:
	// the server would not accept it.
	ErrNoUser = errors.New("client certificate needs a user name")
	// ErrOutlivesCA is returned for a client certificate that would
	// still be valid after its CA expires.
	ErrOutlivesCA = errors.New("client certificate would outlive its CA")
)

// CA is the server's certificate authority with its key, able to sign
// client certificates the server then accepts.
type CA struct {
	kp *keyPair
}

// LoadCA reads the CA a server keeps in pkiDir (<data-dir>/pki, or the
// server's --pki-dir). It fails with ErrNoCA when the directory holds
// none; unlike a server start, it never creates one.
func LoadCA(pkiDir string, now time.Time) (*CA, error) {
	if pkiDir == "" {
		return nil, errors.New("credentials: pki directory not set")
	}
	kp, err := store{dir: pkiDir}.loadCA(now)
	if err != nil {
		return nil, err
	}
	return &CA{kp: kp}, nil
}

// CertPEM is the CA certificate, PEM encoded, for clients to trust.
func (ca *CA) CertPEM() []byte { return encodeCert(ca.kp.cert) }

// NotAfter is when the CA expires.
func (ca *CA) NotAfter() time.Time { return ca.kp.cert.NotAfter }

// ClientCertOptions say whom a client certificate names and for how long.
type ClientCertOptions struct {
	// User is the user name, the certificate's common name.
	User string
	// Groups are the user's groups, the certificate's organizations.
	Groups []string
	// Validity is how long the certificate lasts from Now; 0 is
	// DefaultClientCertValidity.
	Validity time.Duration
	// Now is when the certificate is issued; zero is time.Now().
	Now time.Time
}

// ClientCert is a client certificate and its private key.
type ClientCert struct {
	// CertPEM and KeyPEM are the certificate and key, PEM encoded.
	CertPEM, KeyPEM []byte
	// Cert is the parsed certificate.
	Cert *x509.Certificate
}

// IssueClientCert signs a client certificate for opts.User in opts.Groups,
// which the server's authenticator identifies as that user, as
// kube-apiserver does with --client-ca-file.
func (ca *CA) IssueClientCert(opts ClientCertOptions) (*ClientCert, error) {
	if opts.User == "" {
		return nil, fmt.Errorf("credentials: %w", ErrNoUser)
	}
	if opts.Validity < 0 {
		return nil, fmt.Errorf("credentials: client certificate validity %v is negative", opts.Validity)
	}
	if opts.Validity == 0 {
		opts.Validity = DefaultClientCertValidity
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	notAfter := opts.Now.Add(opts.Validity)
	if notAfter.After(ca.kp.cert.NotAfter) {
		return nil, fmt.Errorf("credentials: %w: it would expire at %s, the CA at %s",
			ErrOutlivesCA, notAfter.UTC().Format(time.RFC3339), ca.kp.cert.NotAfter.UTC().Format(time.RFC3339))
	}
	kp, err := sign(&x509.Certificate{
		Subject:               clientSubject(opts.User, opts.Groups),
		NotBefore:             opts.Now.Add(-clockSkew),
		NotAfter:              notAfter,
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		BasicConstraintsValid: true,
	}, ca.kp)
	if err != nil {
		return nil, err
	}
	key, err := encodeKey(kp.key)
	if err != nil {
		return nil, fmt.Errorf("credentials: encode key for %q: %w", opts.User, err)
	}
	return &ClientCert{CertPEM: encodeCert(kp.cert), KeyPEM: key, Cert: kp.cert}, nil
}

// oidOrganization is the subject's organization attribute (2.5.4.10).
var oidOrganization = asn1.ObjectIdentifier{2, 5, 4, 10}

// clientSubject names user in groups. Each group is a relative
// distinguished name of its own: pkix.Name.Organization would put them in
// one set, which DER sorts, and the groups would come back reordered.
func clientSubject(user string, groups []string) pkix.Name {
	n := pkix.Name{CommonName: user}
	for _, g := range groups {
		n.ExtraNames = append(n.ExtraNames, pkix.AttributeTypeAndValue{Type: oidOrganization, Value: g})
	}
	return n
}
