package credentials

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

const (
	pkiDirName       = "pki"
	caCertFile       = "ca.crt"
	caKeyFile        = "ca.key"
	servingCertFile  = "serving.crt"
	servingKeyFile   = "serving.key"
	adminTokenFile   = "admin.token"
	dirMode          = 0o700
	secretMode       = 0o600
	publicMode       = 0o644
	tokenBytes       = 32 // 256 bits
	minTokenLength   = 32
	pemTypeCert      = "CERTIFICATE"
	pemTypePKCS8Key  = "PRIVATE KEY"
	regenerateAdvice = "remove the whole pki directory to start over, which invalidates existing kubeconfigs"
)

// store reads and writes the credential files in one pki directory.
type store struct {
	dir string
}

func (s store) path(name string) string { return filepath.Join(s.dir, name) }

func (s store) ensureDir() error {
	if err := os.MkdirAll(s.dir, dirMode); err != nil {
		return fmt.Errorf("credentials: create %s: %w", s.dir, err)
	}
	return nil
}

// exists reports whether name is present; errors other than absence (a
// permission problem, say) are returned so they are not mistaken for a first
// start.
func (s store) exists(name string) (bool, error) {
	_, err := os.Stat(s.path(name))
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	default:
		return false, fmt.Errorf("credentials: %w", err)
	}
}

// loadOrCreateCA creates the CA only when neither of its files exists. Half a
// CA is an error: guessing which half to trust could strand every client.
func (s store) loadOrCreateCA(now time.Time) (*keyPair, error) {
	ca, err := s.loadCA(now)
	if !errors.Is(err, ErrNoCA) {
		return ca, err
	}
	if ca, err = newCA(now); err != nil {
		return nil, err
	}
	// Key first: a crash between the writes then leaves a key without a
	// certificate, which is reported rather than half-trusted.
	if err := s.writeKey(caKeyFile, ca.key); err != nil {
		return nil, err
	}
	if err := s.writeFile(caCertFile, encodeCert(ca.cert), publicMode); err != nil {
		return nil, err
	}
	return ca, nil
}

// loadCA reads the stored CA, failing with ErrNoCA when neither of its
// files exists and with a plain error when only one does or they do not
// make a usable CA.
func (s store) loadCA(now time.Time) (*keyPair, error) {
	haveCert, err := s.exists(caCertFile)
	if err != nil {
		return nil, err
	}
	haveKey, err := s.exists(caKeyFile)
	if err != nil {
		return nil, err
	}
	switch {
	case !haveCert && !haveKey:
		return nil, fmt.Errorf("credentials: %w in %s (neither %s nor %s exists)", ErrNoCA, s.dir, caCertFile, caKeyFile)
	case haveCert != haveKey:
		missing := caKeyFile
		if !haveCert {
			missing = caCertFile
		}
		return nil, fmt.Errorf("credentials: %s is missing but its pair exists; %s", s.path(missing), regenerateAdvice)
	}

	cert, err := s.readCert(caCertFile)
	if err != nil {
		return nil, err
	}
	key, err := s.readKey(caKeyFile)
	if err != nil {
		return nil, err
	}
	if !publicKeysEqual(cert.PublicKey, key.Public()) {
		return nil, fmt.Errorf("credentials: %s does not match %s; %s", s.path(caKeyFile), s.path(caCertFile), regenerateAdvice)
	}
	if !cert.IsCA {
		return nil, fmt.Errorf("credentials: %s is not a CA certificate", s.path(caCertFile))
	}
	if !now.Before(cert.NotAfter) {
		return nil, fmt.Errorf("credentials: CA %s expired at %s; %s", s.path(caCertFile), cert.NotAfter.UTC().Format(time.RFC3339), regenerateAdvice)
	}
	return &keyPair{cert: cert, key: key}, nil
}

// loadOrCreateToken keeps the token across restarts so kubeconfigs stay
// valid. A missing token is minted afresh: once the file is gone the old
// token is unrecoverable anyway, whereas a replaced CA would additionally
// break every client's trust in the server.
func (s store) loadOrCreateToken() (string, error) {
	data, err := os.ReadFile(s.path(adminTokenFile))
	if errors.Is(err, fs.ErrNotExist) {
		token, err := newToken()
		if err != nil {
			return "", err
		}
		if err := s.writeFile(adminTokenFile, []byte(token+"\n"), secretMode); err != nil {
			return "", err
		}
		return token, nil
	}
	if err != nil {
		return "", fmt.Errorf("credentials: %w", err)
	}
	token := string(bytes.TrimSpace(data))
	if err := validToken(token); err != nil {
		return "", fmt.Errorf("credentials: %s: %w", s.path(adminTokenFile), err)
	}
	return token, nil
}

// loadServing returns the stored serving pair, or nil when it must be
// (re)generated. Unparseable files are errors, as elsewhere; a pair that
// merely no longer fits (wrong key, other CA, names, expiry) is what an
// interrupted or outdated rotation leaves behind, so it is replaced.
func (s store) loadServing(ca *keyPair, hosts hostSet, now time.Time) (*keyPair, error) {
	haveCert, err := s.exists(servingCertFile)
	if err != nil {
		return nil, err
	}
	haveKey, err := s.exists(servingKeyFile)
	if err != nil {
		return nil, err
	}
	if !haveCert || !haveKey {
		return nil, nil
	}
	cert, err := s.readCert(servingCertFile)
	if err != nil {
		return nil, err
	}
	key, err := s.readKey(servingKeyFile)
	if err != nil {
		return nil, err
	}
	if !publicKeysEqual(cert.PublicKey, key.Public()) ||
		cert.CheckSignatureFrom(ca.cert) != nil ||
		needsRenewal(cert, hosts, now) {
		return nil, nil
	}
	return &keyPair{cert: cert, key: key}, nil
}

func (s store) saveServing(kp *keyPair) error {
	if err := s.writeKey(servingKeyFile, kp.key); err != nil {
		return err
	}
	return s.writeFile(servingCertFile, encodeCert(kp.cert), publicMode)
}

// readCert parses the single certificate in name, naming the file in every
// error so an operator knows what to fix.
func (s store) readCert(name string) (*x509.Certificate, error) {
	block, err := s.readPEM(name, pemTypeCert)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("credentials: %s: %w", s.path(name), err)
	}
	return cert, nil
}

func (s store) readKey(name string) (crypto.Signer, error) {
	block, err := s.readPEM(name, pemTypePKCS8Key)
	if err != nil {
		return nil, err
	}
	parsed, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("credentials: %s: %w", s.path(name), err)
	}
	key, ok := parsed.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("credentials: %s: key type %T cannot sign", s.path(name), parsed)
	}
	return key, nil
}

func (s store) readPEM(name, wantType string) (*pem.Block, error) {
	data, err := os.ReadFile(s.path(name))
	if err != nil {
		return nil, fmt.Errorf("credentials: %w", err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, fmt.Errorf("credentials: %s: no PEM data", s.path(name))
	}
	if block.Type != wantType {
		return nil, fmt.Errorf("credentials: %s: PEM block is %q, want %q", s.path(name), block.Type, wantType)
	}
	return block, nil
}

func (s store) writeKey(name string, key crypto.Signer) error {
	data, err := encodeKey(key)
	if err != nil {
		return fmt.Errorf("credentials: encode %s: %w", s.path(name), err)
	}
	return s.writeFile(name, data, secretMode)
}

func (s store) writeFile(name string, data []byte, mode os.FileMode) error {
	if err := writeFileAtomic(s.path(name), data, mode); err != nil {
		return fmt.Errorf("credentials: %w", err)
	}
	return nil
}

func encodeCert(cert *x509.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: pemTypeCert, Bytes: cert.Raw})
}

// encodeKey encodes key as PKCS #8 PEM, which every client (Go's tls,
// openssl, kubectl) reads whatever the key's algorithm.
func encodeKey(key crypto.Signer) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: pemTypePKCS8Key, Bytes: der}), nil
}

func publicKeysEqual(a, b crypto.PublicKey) bool {
	eq, ok := a.(interface{ Equal(crypto.PublicKey) bool })
	return ok && eq.Equal(b)
}

func newToken() (string, error) {
	buf := make([]byte, tokenBytes)
	if _, err := rand.Read(buf); err != nil {
		return "", fmt.Errorf("credentials: generate admin token: %w", err)
	}
	return hex.EncodeToString(buf), nil
}

// validToken rejects tokens that are too short to resist guessing or that
// could not travel in an Authorization header.
func validToken(token string) error {
	if len(token) < minTokenLength {
		return fmt.Errorf("admin token is %d characters, want at least %d", len(token), minTokenLength)
	}
	for _, r := range token {
		if r <= ' ' || r > '~' {
			return fmt.Errorf("admin token contains %q; only printable ASCII without spaces is allowed", r)
		}
	}
	return nil
}
