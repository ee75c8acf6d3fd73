package csrsigning_test

import (
	"crypto/ecdsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"net"
	"testing"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/setpoint-dev/setpoint/internal/csrtest"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/csrsigning"
)

// request is a signed PKCS#10 request for tmpl's subject and names,
// PEM encoded, and its key.
func request(t *testing.T, tmpl *x509.CertificateRequest) ([]byte, *ecdsa.PrivateKey) {
	t.Helper()
	return csrtest.Request(t, tmpl)
}

func cond(typ certificatesv1.RequestConditionType, status corev1.ConditionStatus) certificatesv1.CertificateSigningRequestCondition {
	return certificatesv1.CertificateSigningRequestCondition{Type: typ, Status: status}
}

func TestDecide(t *testing.T) {
	client, _ := request(t, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "alice", Organization: []string{"dev"}}})
	node, _ := request(t, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "system:node:n1", Organization: []string{"system:nodes"}}})
	serving, _ := request(t, &x509.CertificateRequest{
		Subject: pkix.Name{CommonName: "system:node:n1", Organization: []string{"system:nodes"}}, IPAddresses: []net.IP{net.ParseIP("10.0.0.1")},
	})
	approved := []certificatesv1.CertificateSigningRequestCondition{cond(certificatesv1.CertificateApproved, corev1.ConditionTrue)}
	const (
		apiClient = certificatesv1.KubeAPIServerClientSignerName
		kubelet   = certificatesv1.KubeAPIServerClientKubeletSignerName
		serve     = certificatesv1.KubeletServingSignerName
	)
	u := func(us ...certificatesv1.KeyUsage) []certificatesv1.KeyUsage { return us }
	tests := []struct {
		name    string
		signer  string
		req     []byte
		usages  []certificatesv1.KeyUsage
		conds   []certificatesv1.CertificateSigningRequestCondition
		cert    []byte
		want    csrsigning.Action
		message string
	}{
		{name: "pending", signer: apiClient, req: client, usages: u("client auth"), want: csrsigning.Skip},
		{name: "client", signer: apiClient, req: client, usages: u("client auth"), conds: approved, want: csrsigning.Sign},
		{name: "client with optional usages", signer: apiClient, req: client, usages: u("digital signature", "key encipherment", "client auth"), conds: approved, want: csrsigning.Sign},
		{name: "denied too", signer: apiClient, req: client, usages: u("client auth"), want: csrsigning.Skip,
			conds: append(approved, cond(certificatesv1.CertificateDenied, corev1.ConditionTrue))},
		{name: "failed already", signer: apiClient, req: client, usages: u("server auth"), want: csrsigning.Skip,
			conds: append(approved, cond(certificatesv1.CertificateFailed, corev1.ConditionTrue))},
		{name: "failed without status", signer: apiClient, req: client, usages: u("client auth"), want: csrsigning.Skip,
			conds: append(approved, cond(certificatesv1.CertificateFailed, ""))},
		{name: "issued already", signer: apiClient, req: client, usages: u("client auth"), conds: approved, cert: []byte("x"), want: csrsigning.Skip},
		{name: "another signer", signer: "example.com/signer", req: client, usages: u("client auth"), conds: approved, want: csrsigning.Skip},
		{name: "a server usage", signer: apiClient, req: client, usages: u("client auth", "server auth", "code signing"), conds: approved,
			want: csrsigning.Fail, message: "invalid usage for client certificate: server auth"},
		{name: "no client auth", signer: apiClient, req: client, usages: u("digital signature"), conds: approved,
			want: csrsigning.Fail, message: "missing required usage for client certificate: client auth"},
		{name: "kubelet client", signer: kubelet, req: node, usages: u("digital signature", "client auth"), conds: approved, want: csrsigning.Sign},
		{name: "kubelet client not a node", signer: kubelet, req: client, usages: u("client auth"), conds: approved,
			want: csrsigning.Fail, message: "subject organization is not system:nodes"},
		{name: "kubelet client with addresses", signer: kubelet, req: serving, usages: u("client auth"), conds: approved,
			want: csrsigning.Fail, message: "IP subjectAltNames are not allowed"},
		{name: "kubelet client usages", signer: kubelet, req: node, usages: u("client auth"), conds: approved,
			want: csrsigning.Fail, message: "usages did not match [client auth digital signature key encipherment]"},
		{name: "kubelet serving", signer: serve, req: serving, usages: u("key encipherment", "digital signature", "server auth"), conds: approved, want: csrsigning.Sign},
		{name: "kubelet serving without names", signer: serve, req: node, usages: u("digital signature", "server auth"), conds: approved,
			want: csrsigning.Fail, message: "DNS or IP subjectAltName is required"},
		{name: "kubelet serving usages", signer: serve, req: serving, usages: u("digital signature", "client auth"), conds: approved,
			want: csrsigning.Fail, message: "usages did not match [digital signature key encipherment server auth]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			csr := &certificatesv1.CertificateSigningRequest{
				Spec:   certificatesv1.CertificateSigningRequestSpec{Request: tt.req, SignerName: tt.signer, Usages: tt.usages},
				Status: certificatesv1.CertificateSigningRequestStatus{Conditions: tt.conds, Certificate: tt.cert},
			}
			got, message, req, err := csrsigning.Decide(csr)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want || message != tt.message {
				t.Errorf("got %v %q, want %v %q", got, message, tt.want, tt.message)
			}
			if (req != nil) != (got == csrsigning.Sign) {
				t.Errorf("request %v for %v", req, got)
			}
		})
	}
}

// TestDecideUnreadable: a request that is no signed PKCS#10 request is
// an error, not a guess.
func TestDecideUnreadable(t *testing.T) {
	csr := &certificatesv1.CertificateSigningRequest{
		Spec:   certificatesv1.CertificateSigningRequestSpec{Request: []byte("junk"), SignerName: certificatesv1.KubeAPIServerClientSignerName},
		Status: certificatesv1.CertificateSigningRequestStatus{Conditions: []certificatesv1.CertificateSigningRequestCondition{cond(certificatesv1.CertificateApproved, corev1.ConditionTrue)}},
	}
	if _, _, _, err := csrsigning.Decide(csr); !errors.Is(err, csrsigning.ErrRequest) {
		t.Errorf("got %v, want ErrRequest", err)
	}
}
