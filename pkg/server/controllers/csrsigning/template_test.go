package csrsigning_test

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"reflect"
	"testing"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"

	"github.com/setpoint-dev/setpoint/pkg/server/controllers/csrsigning"
)

func TestDuration(t *testing.T) {
	secs := func(s int32) *int32 { return &s }
	const year = 365 * 24 * time.Hour
	tests := []struct {
		asked *int32
		want  time.Duration
	}{
		{nil, year},
		{secs(3600), time.Hour},
		{secs(60), 10 * time.Minute},
		{secs(600), 10 * time.Minute},
		{secs(2 * 365 * 24 * 3600), year},
	}
	for _, tt := range tests {
		if got := csrsigning.Duration(tt.asked, year); got != tt.want {
			t.Errorf("Duration(%v): got %v, want %v", tt.asked, got, tt.want)
		}
	}
}

func TestTemplate(t *testing.T) {
	pemReq, _ := request(t, &x509.CertificateRequest{
		Subject:        pkix.Name{CommonName: "alice", Organization: []string{"dev", "qa"}},
		DNSNames:       []string{"alice.example.com"},
		EmailAddresses: []string{"alice@example.com"},
	})
	csr := &certificatesv1.CertificateSigningRequest{Spec: certificatesv1.CertificateSigningRequestSpec{
		Request: pemReq, SignerName: certificatesv1.KubeAPIServerClientSignerName, Usages: []certificatesv1.KeyUsage{"client auth"},
		ExpirationSeconds: new(int32),
	}}
	csr.Status.Conditions = []certificatesv1.CertificateSigningRequestCondition{{Type: certificatesv1.CertificateApproved, Status: "True"}}
	_, _, req, err := csrsigning.Decide(csr)
	if err != nil || req == nil {
		t.Fatalf("decide: %v %v", req, err)
	}
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	caEnd := now.Add(30 * 24 * time.Hour)
	tests := []struct {
		name      string
		d         time.Duration
		caEnd     time.Time
		notAfter  time.Time
		wantError error
	}{
		{name: "short: ends when asked", d: time.Hour, caEnd: caEnd, notAfter: now.Add(time.Hour)},
		{name: "long: backdated", d: 24 * time.Hour, caEnd: caEnd, notAfter: now.Add(24*time.Hour - 5*time.Minute)},
		{name: "no later than the CA", d: 365 * 24 * time.Hour, caEnd: caEnd, notAfter: caEnd},
		{name: "the CA has expired", d: time.Hour, caEnd: now.Add(-time.Minute), wantError: csrsigning.ErrCAExpired},
		{name: "the CA expires now", d: time.Hour, caEnd: now, wantError: csrsigning.ErrCAExpired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			usages := []certificatesv1.KeyUsage{"client auth", "key encipherment", "digital signature", "client auth", "signing"}
			got, err := csrsigning.Template(req, usages, tt.d, tt.caEnd, now)
			if !errors.Is(err, tt.wantError) {
				t.Fatalf("error %v, want %v", err, tt.wantError)
			}
			if err != nil {
				return
			}
			if !got.NotAfter.Equal(tt.notAfter) || !got.NotBefore.Equal(now.Add(-5*time.Minute)) {
				t.Errorf("validity %v to %v, want %v to %v", got.NotBefore, got.NotAfter, now.Add(-5*time.Minute), tt.notAfter)
			}
			// The organizations as the request holds them: DER sorted.
			if got.Subject.CommonName != "alice" || !reflect.DeepEqual(got.Subject.Organization, []string{"qa", "dev"}) ||
				!reflect.DeepEqual(got.DNSNames, req.DNSNames) || !reflect.DeepEqual(got.EmailAddresses, req.EmailAddresses) {
				t.Errorf("names: %+v %v %v", got.Subject, got.DNSNames, got.EmailAddresses)
			}
			if got.KeyUsage != x509.KeyUsageDigitalSignature|x509.KeyUsageKeyEncipherment ||
				!reflect.DeepEqual(got.ExtKeyUsage, []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}) {
				t.Errorf("usages %v %v", got.KeyUsage, got.ExtKeyUsage)
			}
			if got.IsCA || !got.BasicConstraintsValid || got.SerialNumber.Sign() <= 0 || got.PublicKey != req.PublicKey {
				t.Errorf("CA %v, constraints %v, serial %v, key %v", got.IsCA, got.BasicConstraintsValid, got.SerialNumber, got.PublicKey)
			}
		})
	}
}
