package credentials

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"path/filepath"
	"time"
)

// Options says where credentials live and whom the serving certificate names.
type Options struct {
	// Dir is the data directory; credentials go in Dir/pki.
	Dir string
	// PKIDir, when set, is where the credentials go instead of Dir/pki:
	// servers that share it (replicas on one etcd) share the CA, the
	// serving certificate and the admin token, so one kubeconfig works
	// against every one of them.
	PKIDir string
	// Hosts are extra subject alternative names besides 127.0.0.1, ::1 and
	// localhost. IPs become IP SANs, everything else DNS SANs.
	Hosts []string
	// Now is the clock; nil means time.Now. Injected so expiry handling can
	// be tested without waiting a year.
	Now func() time.Time
}

// PKIPath is the directory the credentials are kept in: PKIDir, else
// Dir/pki. Other keys of the server (its service account signing key)
// are kept beside them, so replicas sharing PKIDir share those too.
func (o Options) PKIPath() string {
	if o.PKIDir != "" {
		return o.PKIDir
	}
	return filepath.Join(o.Dir, pkiDirName)
}

// Credentials is everything the server and its admin client need.
type Credentials struct {
	// CAPEM is the CA certificate, PEM encoded, for clients to trust.
	CAPEM []byte
	// Serving is the serving certificate and key. The chain holds only the
	// leaf: every client has to trust CAPEM anyway, so sending it is waste.
	Serving tls.Certificate
	// AdminToken is the bearer token that grants full access.
	AdminToken string
	// LoopbackToken is the bearer token of the server's own clients (the
	// built-in controllers), authenticating as LoopbackUser. It is minted
	// for each process and never stored, like kube-apiserver's loopback
	// token, so it cannot leak through the data directory.
	LoopbackToken string

	// ca signs client certificates; nil in Credentials built by hand.
	ca *keyPair
}

// LoadOrCreate returns the credentials stored under opts.Dir, creating
// whatever is missing.
//
// The CA and token survive restarts because existing kubeconfigs depend on
// them; an unreadable CA is an error rather than a reason to mint a new one.
// The serving certificate is cheap to replace and nothing outside the server
// pins it, so it is regenerated whenever it is missing, near expiry, no longer
// matches its key or the CA, or lacks one of the wanted names.
func LoadOrCreate(opts Options) (*Credentials, error) {
	if opts.Dir == "" && opts.PKIDir == "" {
		return nil, errors.New("credentials: data directory not set")
	}
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	hosts, err := servingHosts(opts.Hosts)
	if err != nil {
		return nil, err
	}
	s := store{dir: filepath.Join(opts.Dir, pkiDirName)}
	if opts.PKIDir != "" {
		s.dir = opts.PKIDir
	}
	if err := s.ensureDir(); err != nil {
		return nil, err
	}

	ca, err := s.loadOrCreateCA(now())
	if err != nil {
		return nil, err
	}
	token, err := s.loadOrCreateToken()
	if err != nil {
		return nil, err
	}
	serving, err := s.loadServing(ca, hosts, now())
	if err != nil {
		return nil, err
	}
	if serving == nil {
		if serving, err = newServing(ca, hosts, now()); err != nil {
			return nil, err
		}
		if err := s.saveServing(serving); err != nil {
			return nil, err
		}
	}
	return assemble(ca, serving, token)
}

// Generate makes a fresh CA, serving certificate and token in memory only,
// for in-process servers that live as long as a test.
func Generate(hosts []string, now time.Time) (*Credentials, error) {
	names, err := servingHosts(hosts)
	if err != nil {
		return nil, err
	}
	ca, err := newCA(now)
	if err != nil {
		return nil, err
	}
	serving, err := newServing(ca, names, now)
	if err != nil {
		return nil, err
	}
	token, err := newToken()
	if err != nil {
		return nil, err
	}
	return assemble(ca, serving, token)
}

func assemble(ca, serving *keyPair, token string) (*Credentials, error) {
	loopback, err := newToken()
	if err != nil {
		return nil, err
	}
	leaf := serving.cert
	return &Credentials{
		CAPEM: encodeCert(ca.cert),
		Serving: tls.Certificate{
			Certificate: [][]byte{leaf.Raw},
			PrivateKey:  serving.key,
			Leaf:        leaf,
		},
		AdminToken:    token,
		LoopbackToken: loopback,
		ca:            ca,
	}, nil
}

// Authenticator admits the admin token, the loopback token and client
// certificates signed by the CA.
func (c *Credentials) Authenticator() *Authenticator {
	a := NewAuthenticator(c.AdminToken).WithLoopback(c.LoopbackToken)
	if pool, err := c.CertPool(); err == nil {
		a = a.WithClientCA(pool)
	}
	return a
}

// CA is the CA the credentials were made with, for signing client
// certificates; nil when c was built by hand rather than by LoadOrCreate
// or Generate.
func (c *Credentials) CA() *CA {
	if c.ca == nil {
		return nil
	}
	return &CA{kp: c.ca}
}

// CertPool returns a pool holding only the CA, for clients of this server.
func (c *Credentials) CertPool() (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(c.CAPEM) {
		return nil, errors.New("credentials: CA PEM holds no certificate")
	}
	return pool, nil
}
