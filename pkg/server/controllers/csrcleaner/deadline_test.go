package csrcleaner_test

import (
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"testing"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/server/controllers/csrcleaner"
)

// certExpiring is a PEM certificate that expires at notAfter.
func certExpiring(t *testing.T, notAfter time.Time) []byte {
	t.Helper()
	key := mustKey(t)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "x"}, NotBefore: notAfter.Add(-48 * time.Hour), NotAfter: notAfter}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func TestDeadline(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	at := func(d time.Duration) metav1.Time { return metav1.NewTime(t0.Add(d)) }
	cond := func(typ certificatesv1.RequestConditionType, updated metav1.Time) certificatesv1.CertificateSigningRequestCondition {
		return certificatesv1.CertificateSigningRequestCondition{Type: typ, Status: "True", LastUpdateTime: updated}
	}
	approved := cond(certificatesv1.CertificateApproved, at(time.Hour))
	tests := []struct {
		name  string
		conds []certificatesv1.CertificateSigningRequestCondition
		cert  []byte
		want  time.Time // zero: no deadline
	}{
		{name: "pending", want: t0.Add(24 * time.Hour)},
		{name: "approved, awaiting its certificate", conds: []certificatesv1.CertificateSigningRequestCondition{approved}},
		{name: "issued", conds: []certificatesv1.CertificateSigningRequestCondition{approved}, cert: certExpiring(t, t0.Add(30*24*time.Hour)), want: t0.Add(2 * time.Hour)},
		{name: "issued, expiring sooner", conds: []certificatesv1.CertificateSigningRequestCondition{approved}, cert: certExpiring(t, t0.Add(90*time.Minute)), want: t0.Add(90 * time.Minute)},
		{name: "denied", conds: []certificatesv1.CertificateSigningRequestCondition{cond(certificatesv1.CertificateDenied, at(3*time.Hour))}, want: t0.Add(4 * time.Hour)},
		{name: "failed", conds: []certificatesv1.CertificateSigningRequestCondition{approved, cond(certificatesv1.CertificateFailed, at(30*time.Minute))}, want: t0.Add(90 * time.Minute)},
		{name: "conditions without times", conds: []certificatesv1.CertificateSigningRequestCondition{cond(certificatesv1.CertificateDenied, metav1.Time{})}},
		{name: "another condition only", conds: []certificatesv1.CertificateSigningRequestCondition{cond("Custom", at(0))}},
	}
	for _, tt := range tests {
		csr := &certificatesv1.CertificateSigningRequest{
			ObjectMeta: metav1.ObjectMeta{CreationTimestamp: at(0)},
			Status:     certificatesv1.CertificateSigningRequestStatus{Conditions: tt.conds, Certificate: tt.cert},
		}
		got, ok := csrcleaner.Deadline(csr)
		if ok != !tt.want.IsZero() || !got.Equal(tt.want) {
			t.Errorf("%s: got %v %v, want %v", tt.name, got, ok, tt.want)
		}
	}
}
