package csrcleaner

import (
	"crypto/x509"
	"encoding/pem"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The ages at which kube deletes requests.
const (
	ApprovedTTL = time.Hour
	DeniedTTL   = time.Hour
	PendingTTL  = 24 * time.Hour
)

// Deadline is when csr is to be deleted: the earliest deadline of the
// rules it meets. ok is false when none applies (an approved request
// awaiting its certificate, or conditions without times).
func Deadline(csr *certificatesv1.CertificateSigningRequest) (at time.Time, ok bool) {
	consider := func(t time.Time) {
		if !t.IsZero() && (!ok || t.Before(at)) {
			at, ok = t, true
		}
	}
	issued := len(csr.Status.Certificate) > 0
	if len(csr.Status.Conditions) == 0 {
		consider(after(csr.CreationTimestamp, PendingTTL))
	}
	for _, c := range csr.Status.Conditions {
		switch c.Type {
		case certificatesv1.CertificateApproved:
			if issued {
				consider(after(c.LastUpdateTime, ApprovedTTL))
				consider(expiry(csr.Status.Certificate))
			}
		case certificatesv1.CertificateDenied, certificatesv1.CertificateFailed:
			consider(after(c.LastUpdateTime, DeniedTTL))
		}
	}
	return at, ok
}

// after is d after t, or zero for a zero t (a condition without time).
func after(t metav1.Time, d time.Duration) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.Add(d)
}

// expiry is when the first certificate of a PEM bundle expires, zero
// when there is none to read.
func expiry(data []byte) time.Time {
	block, _ := pem.Decode(data)
	if block == nil {
		return time.Time{}
	}
	certs, err := x509.ParseCertificates(block.Bytes)
	if err != nil || len(certs) == 0 {
		return time.Time{}
	}
	return certs[0].NotAfter
}
