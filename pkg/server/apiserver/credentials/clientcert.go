package credentials

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/asn1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"net/http"
	"slices"
	"sync"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
)

// These are the names kube-apiserver gives what a client certificate says.
const (
	// CredentialIDKey is the user's extra key naming the credential used,
	// for a certificate "X509SHA256=" and the hex SHA-256 of its DER.
	CredentialIDKey = "authentication.kubernetes.io/credential-id"
	// AuthenticatedGroup is in every authenticated user's groups.
	AuthenticatedGroup = "system:authenticated"
	// unauthenticatedGroup and anonymousUser are left without
	// AuthenticatedGroup, as kube leaves them.
	unauthenticatedGroup = "system:unauthenticated"
	anonymousUser        = "system:anonymous"
)

// uidOID is the subject attribute kube reads a user's UID from
// (1.3.6.1.4.1.57683.2, under the CNCF's enterprise number).
var uidOID = asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 57683, 2}

// WithClientCA returns a copy of a that also admits requests whose TLS
// client certificate verifies against pool for client authentication, as
// kube-apiserver's --client-ca-file: the user is the certificate's common
// name and the groups its organizations. A nil pool admits no certificate.
func (a *Authenticator) WithClientCA(pool *x509.CertPool) *Authenticator {
	b := *a
	b.clientCAs = pool
	b.verified = &certCache{}
	return &b
}

// identifyCert returns who r's client certificate names, when it has one
// that verifies. A certificate that does not verify, or names nobody,
// identifies nobody; the request may still carry a valid token, which
// kube-apiserver then accepts too.
func (a *Authenticator) identifyCert(r *http.Request) (authenticationv1.UserInfo, bool) {
	if a.clientCAs == nil || r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
		return authenticationv1.UserInfo{}, false
	}
	peers := r.TLS.PeerCertificates
	now := time.Now()
	key := chainKey(peers)
	if u, ok := a.verified.get(key, now); ok {
		return u, true
	}
	opts := x509.VerifyOptions{
		Roots:     a.clientCAs,
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if len(peers) > 1 {
		opts.Intermediates = x509.NewCertPool()
		for _, c := range peers[1:] {
			opts.Intermediates.AddCert(c)
		}
	}
	chains, err := peers[0].Verify(opts)
	if err != nil {
		return authenticationv1.UserInfo{}, false
	}
	u, err := certUser(peers[0])
	if err != nil || u.Username == "" {
		return authenticationv1.UserInfo{}, false
	}
	a.verified.put(key, u, chains[0])
	return u, true
}

// certCacheSize bounds the verified chains remembered; past it the cache
// starts over, which costs a verification per client, not correctness.
const certCacheSize = 1024

// certCache remembers who verified chains name. Verifying a chain checks
// a signature per certificate, tens of microseconds, and a client sends
// the same chain with every request; kube-apiserver verifies each time.
// An entry is used only while every certificate in the chain is within
// its validity period, so expiry is seen as without the cache.
type certCache struct {
	mu      sync.Mutex
	entries map[[sha256.Size]byte]certEntry
}

type certEntry struct {
	user                authenticationv1.UserInfo
	notBefore, notAfter time.Time
}

// chainKey identifies a chain as presented: the same leaf with other
// intermediates may verify differently.
func chainKey(peers []*x509.Certificate) [sha256.Size]byte {
	h := sha256.New()
	for _, c := range peers {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(c.Raw)))
		h.Write(n[:])
		h.Write(c.Raw)
	}
	var key [sha256.Size]byte
	h.Sum(key[:0])
	return key
}

func (c *certCache) get(key [sha256.Size]byte, now time.Time) (authenticationv1.UserInfo, bool) {
	if c == nil {
		return authenticationv1.UserInfo{}, false
	}
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if !ok || now.Before(e.notBefore) || now.After(e.notAfter) {
		return authenticationv1.UserInfo{}, false
	}
	return e.user, true
}

func (c *certCache) put(key [sha256.Size]byte, u authenticationv1.UserInfo, chain []*x509.Certificate) {
	if c == nil {
		return
	}
	e := certEntry{user: u, notBefore: chain[0].NotBefore, notAfter: chain[0].NotAfter}
	for _, cert := range chain[1:] {
		if cert.NotBefore.After(e.notBefore) {
			e.notBefore = cert.NotBefore
		}
		if cert.NotAfter.Before(e.notAfter) {
			e.notAfter = cert.NotAfter
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || len(c.entries) >= certCacheSize {
		c.entries = make(map[[sha256.Size]byte]certEntry)
	}
	c.entries[key] = e
}

// certUser reads the user a verified certificate names. An empty common
// name names nobody (not an error); a malformed UID is an error.
func certUser(cert *x509.Certificate) (authenticationv1.UserInfo, error) {
	if cert.Subject.CommonName == "" {
		return authenticationv1.UserInfo{}, nil
	}
	uid, err := certUID(cert)
	if err != nil {
		return authenticationv1.UserInfo{}, err
	}
	sum := sha256.Sum256(cert.Raw)
	return authenticationv1.UserInfo{
		Username: cert.Subject.CommonName,
		UID:      uid,
		Groups:   withAuthenticatedGroup(cert.Subject.CommonName, cert.Subject.Organization),
		Extra: map[string]authenticationv1.ExtraValue{
			CredentialIDKey: {"X509SHA256=" + hex.EncodeToString(sum[:])},
		},
	}, nil
}

// errUID is a certificate's UID attribute that kube refuses.
var errUID = errors.New("client certificate UID must be one non-empty string")

// certUID is the subject's UID attribute, at most one non-empty string.
func certUID(cert *x509.Certificate) (string, error) {
	var uids []string
	for _, atv := range cert.Subject.Names {
		if !atv.Type.Equal(uidOID) {
			continue
		}
		s, ok := atv.Value.(string)
		if !ok {
			return "", errUID
		}
		uids = append(uids, s)
	}
	switch {
	case len(uids) == 0:
		return "", nil
	case len(uids) > 1 || uids[0] == "":
		return "", errUID
	}
	return uids[0], nil
}

// withAuthenticatedGroup adds AuthenticatedGroup to groups, unless they
// already say whether the user is authenticated or the user is the
// anonymous one, as kube's authenticated-group adder does.
func withAuthenticatedGroup(username string, groups []string) []string {
	out := slices.Clone(groups)
	if username == anonymousUser || slices.Contains(groups, AuthenticatedGroup) || slices.Contains(groups, unauthenticatedGroup) {
		return out
	}
	return append(out, AuthenticatedGroup)
}
