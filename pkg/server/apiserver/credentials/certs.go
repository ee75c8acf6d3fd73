package credentials

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"net"
	"strings"
	"time"
)

const (
	caValidity      = 10 * 365 * 24 * time.Hour
	servingValidity = 365 * 24 * time.Hour
	// clockSkew backdates NotBefore so a client whose clock runs a little
	// behind the server's does not reject a certificate minted moments ago.
	clockSkew = time.Hour
	// renewBefore is how close to expiry a serving certificate may get before
	// a restart replaces it; a month leaves room for servers that restart rarely.
	renewBefore = 30 * 24 * time.Hour

	servingCommonName = "setpoint-apiserver"
	caCommonNameStem  = "setpoint-ca"
)

// keyPair is a parsed certificate with its private key.
type keyPair struct {
	cert *x509.Certificate
	key  crypto.Signer
}

// hostSet is a normalised list of serving names, split the way x509 wants
// them.
type hostSet struct {
	ips []net.IP
	dns []string
}

// servingHosts merges the defaults with extra, dropping blanks and duplicates.
func servingHosts(extra []string) (hostSet, error) {
	var hs hostSet
	seen := map[string]bool{}
	// The loopback names are always present so local clients work whatever
	// the configuration says.
	all := append([]string{"127.0.0.1", "::1", "localhost"}, extra...)
	for _, h := range all {
		h = strings.TrimSpace(h)
		if h == "" {
			continue
		}
		if ip := net.ParseIP(strings.Trim(h, "[]")); ip != nil {
			if key := ip.String(); !seen[key] {
				seen[key] = true
				hs.ips = append(hs.ips, ip)
			}
			continue
		}
		name := strings.ToLower(h)
		if strings.ContainsAny(name, " /:") {
			return hostSet{}, fmt.Errorf("credentials: host %q is neither an IP nor a DNS name", h)
		}
		if !seen[name] {
			seen[name] = true
			hs.dns = append(hs.dns, name)
		}
	}
	return hs, nil
}

// coveredBy reports whether cert names every host in hs. The match is exact
// rather than via VerifyHostname so that a wildcard in Hosts is treated as a
// name to include, not a pattern to satisfy.
func (hs hostSet) coveredBy(cert *x509.Certificate) bool {
	for _, want := range hs.ips {
		found := false
		for _, got := range cert.IPAddresses {
			if got.Equal(want) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	for _, want := range hs.dns {
		found := false
		for _, got := range cert.DNSNames {
			if strings.EqualFold(got, want) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func newCA(now time.Time) (*keyPair, error) {
	tmpl := &x509.Certificate{
		// The timestamp tells CAs of different installations apart when
		// someone is debugging which one a kubeconfig trusts.
		Subject:               pkix.Name{CommonName: fmt.Sprintf("%s@%d", caCommonNameStem, now.Unix())},
		NotBefore:             now.Add(-clockSkew),
		NotAfter:              now.Add(caValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		// The CA only ever signs leaves.
		MaxPathLenZero: true,
	}
	return sign(tmpl, nil)
}

func newServing(ca *keyPair, hosts hostSet, now time.Time) (*keyPair, error) {
	tmpl := &x509.Certificate{
		Subject:               pkix.Name{CommonName: servingCommonName},
		NotBefore:             now.Add(-clockSkew),
		NotAfter:              now.Add(servingValidity),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IPAddresses:           hosts.ips,
		DNSNames:              hosts.dns,
	}
	return sign(tmpl, ca)
}

// sign creates a key for tmpl and a certificate signed by parent, or
// self-signed when parent is nil. P-256 keeps this fast enough for tests that
// start a server per case.
func sign(tmpl *x509.Certificate, parent *keyPair) (*keyPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("credentials: generate key for %q: %w", tmpl.Subject.CommonName, err)
	}
	serial, err := randomSerial()
	if err != nil {
		return nil, err
	}
	tmpl.SerialNumber = serial

	issuer, signer := tmpl, crypto.Signer(key)
	if parent != nil {
		issuer, signer = parent.cert, parent.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, issuer, key.Public(), signer)
	if err != nil {
		return nil, fmt.Errorf("credentials: create certificate %q: %w", tmpl.Subject.CommonName, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("credentials: parse new certificate %q: %w", tmpl.Subject.CommonName, err)
	}
	return &keyPair{cert: cert, key: key}, nil
}

// randomSerial returns a random positive 128-bit serial; RFC 5280 forbids
// zero and negative serials, and randomness keeps them unique without state.
func randomSerial() (*big.Int, error) {
	limit := new(big.Int).Lsh(big.NewInt(1), 128)
	for {
		n, err := rand.Int(rand.Reader, limit)
		if err != nil {
			return nil, fmt.Errorf("credentials: generate serial number: %w", err)
		}
		if n.Sign() > 0 {
			return n, nil
		}
	}
}

// needsRenewal reports whether a stored serving certificate should be
// replaced at time now. A clock that went back before NotBefore is not a
// reason: the CA would be just as "not yet valid", so a new leaf gains nothing.
func needsRenewal(cert *x509.Certificate, hosts hostSet, now time.Time) bool {
	return now.Add(renewBefore).After(cert.NotAfter) || !hosts.coveredBy(cert)
}
