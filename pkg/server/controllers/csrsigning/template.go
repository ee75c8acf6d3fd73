package csrsigning

import (
	"crypto/rand"
	"crypto/x509"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
)

// Backdate is how far before now a certificate starts, so that a client
// whose clock lags can use it at once; MinDuration is the shortest
// certificate issued, twice that; short certificates (under Short) end
// exactly when asked, longer ones Backdate earlier, so backdating does
// not lengthen them. These are kube's signer's.
const (
	Backdate    = 5 * time.Minute
	MinDuration = 10 * time.Minute
	Short       = 8 * time.Hour
)

// ErrCAExpired is returned by Template once the CA can no longer sign.
var ErrCAExpired = errors.New("csrsigning: the signer has expired")

// Duration is how long a certificate lasts: what the request asks
// (expirationSeconds; nil asks nothing), at least MinDuration, at most
// longest.
func Duration(expirationSeconds *int32, longest time.Duration) time.Duration {
	if expirationSeconds == nil {
		return longest
	}
	asked := time.Duration(*expirationSeconds) * time.Second
	return min(max(asked, MinDuration), longest)
}

// Template is the certificate issued at now for req, for usages, lasting
// d, within the CA's validity (caNotAfter): req's subject and
// alternative names and key, no other extension of the request, not a
// CA, a random serial.
func Template(req *x509.CertificateRequest, usages []certificatesv1.KeyUsage, d time.Duration, caNotAfter, now time.Time) (*x509.Certificate, error) {
	keyUsage, extKeyUsage, err := x509Usages(usages)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return nil, fmt.Errorf("csrsigning: serial number for %q: %w", req.Subject.CommonName, err)
	}
	notAfter := now.Add(d)
	if d >= Short {
		notAfter = notAfter.Add(-Backdate)
	}
	notAfter = minTime(notAfter, caNotAfter)
	notBefore := now.Add(-Backdate)
	if !notBefore.Before(caNotAfter) || !now.Before(caNotAfter) {
		return nil, fmt.Errorf("%w: NotAfter=%v", ErrCAExpired, caNotAfter)
	}
	return &x509.Certificate{
		SerialNumber: serial,
		// The parsed subject: attributes it has no field for are
		// dropped, as kube's signer drops them.
		Subject:               req.Subject,
		DNSNames:              req.DNSNames,
		IPAddresses:           req.IPAddresses,
		EmailAddresses:        req.EmailAddresses,
		URIs:                  req.URIs,
		PublicKeyAlgorithm:    req.PublicKeyAlgorithm,
		PublicKey:             req.PublicKey,
		KeyUsage:              keyUsage,
		ExtKeyUsage:           extKeyUsage,
		BasicConstraintsValid: true,
		NotBefore:             notBefore,
		NotAfter:              notAfter,
	}, nil
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// keyUsages and extKeyUsages map the API's usages to X.509's.
var (
	keyUsages = map[certificatesv1.KeyUsage]x509.KeyUsage{
		certificatesv1.UsageSigning:           x509.KeyUsageDigitalSignature,
		certificatesv1.UsageDigitalSignature:  x509.KeyUsageDigitalSignature,
		certificatesv1.UsageContentCommitment: x509.KeyUsageContentCommitment,
		certificatesv1.UsageKeyEncipherment:   x509.KeyUsageKeyEncipherment,
		certificatesv1.UsageKeyAgreement:      x509.KeyUsageKeyAgreement,
		certificatesv1.UsageDataEncipherment:  x509.KeyUsageDataEncipherment,
		certificatesv1.UsageCertSign:          x509.KeyUsageCertSign,
		certificatesv1.UsageCRLSign:           x509.KeyUsageCRLSign,
		certificatesv1.UsageEncipherOnly:      x509.KeyUsageEncipherOnly,
		certificatesv1.UsageDecipherOnly:      x509.KeyUsageDecipherOnly,
	}
	extKeyUsages = map[certificatesv1.KeyUsage]x509.ExtKeyUsage{
		certificatesv1.UsageAny:             x509.ExtKeyUsageAny,
		certificatesv1.UsageServerAuth:      x509.ExtKeyUsageServerAuth,
		certificatesv1.UsageClientAuth:      x509.ExtKeyUsageClientAuth,
		certificatesv1.UsageCodeSigning:     x509.ExtKeyUsageCodeSigning,
		certificatesv1.UsageEmailProtection: x509.ExtKeyUsageEmailProtection,
		certificatesv1.UsageSMIME:           x509.ExtKeyUsageEmailProtection,
		certificatesv1.UsageIPsecEndSystem:  x509.ExtKeyUsageIPSECEndSystem,
		certificatesv1.UsageIPsecTunnel:     x509.ExtKeyUsageIPSECTunnel,
		certificatesv1.UsageIPsecUser:       x509.ExtKeyUsageIPSECUser,
		certificatesv1.UsageTimestamping:    x509.ExtKeyUsageTimeStamping,
		certificatesv1.UsageOCSPSigning:     x509.ExtKeyUsageOCSPSigning,
		certificatesv1.UsageMicrosoftSGC:    x509.ExtKeyUsageMicrosoftServerGatedCrypto,
		certificatesv1.UsageNetscapeSGC:     x509.ExtKeyUsageNetscapeServerGatedCrypto,
	}
)

// x509Usages are the key usage bits and the extended key usages, once
// each and in ascending order, that usages name.
func x509Usages(usages []certificatesv1.KeyUsage) (x509.KeyUsage, []x509.ExtKeyUsage, error) {
	var bits x509.KeyUsage
	var ext []x509.ExtKeyUsage
	var unknown []certificatesv1.KeyUsage
	for _, u := range usages {
		if b, ok := keyUsages[u]; ok {
			bits |= b
		} else if e, ok := extKeyUsages[u]; ok {
			ext = append(ext, e)
		} else {
			unknown = append(unknown, u)
		}
	}
	if len(unknown) > 0 {
		return 0, nil, fmt.Errorf("unrecognized usage values: %q", unknown)
	}
	slices.Sort(ext)
	return bits, slices.Compact(ext), nil
}
