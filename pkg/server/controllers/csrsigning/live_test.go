package csrsigning_test

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/csrsigning"
)

// csrScheme knows the client's default kinds, certificates.k8s.io/v1
// and authentication.k8s.io/v1.
func csrScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := client.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{certificatesv1.AddToScheme, authenticationv1.AddToScheme} {
		if err := add(s); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// approveAndWait approves csr as an admin would with kubectl and waits
// until the controller has acted on it.
func approveAndWait(t *testing.T, c *client.Client, csr *certificatesv1.CertificateSigningRequest) *certificatesv1.CertificateSigningRequest {
	t.Helper()
	csr.Status.Conditions = append(csr.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{
		Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue, Reason: "Test", Message: "approved by the test",
	})
	if err := c.UpdateSubresource(t.Context(), csr, "approval"); err != nil {
		t.Fatal(err)
	}
	got := &certificatesv1.CertificateSigningRequest{}
	envtest.Eventually(t, "the signer to act on "+csr.Name, func() error {
		if err := c.Get(t.Context(), types.NamespacedName{Name: csr.Name}, got); err != nil {
			return err
		}
		if len(got.Status.Certificate) == 0 && len(got.Status.Conditions) < 2 {
			return errors.New("neither issued nor failed")
		}
		return nil
	})
	return got
}

// TestLive: an approved request for the kube-apiserver-client signer is
// issued a certificate by the server's CA, which the server then takes
// as the request's subject; one asking for the wrong usages fails with
// kube's reason.
func TestLive(t *testing.T) {
	scheme := csrScheme(t)
	env := envtest.Start(t, envtest.WithScheme(scheme))
	c := env.Client()

	pemReq, key := request(t, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "alice", Organization: []string{"dev"}}})
	hour := int32(3600)
	csr := &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{Name: "alice"},
		Spec: certificatesv1.CertificateSigningRequestSpec{
			Request: pemReq, SignerName: certificatesv1.KubeAPIServerClientSignerName,
			Usages: []certificatesv1.KeyUsage{"client auth"}, ExpirationSeconds: &hour,
		},
	}
	if err := c.Create(t.Context(), csr); err != nil {
		t.Fatal(err)
	}
	issued := approveAndWait(t, c, csr)
	block, _ := pem.Decode(issued.Status.Certificate)
	if block == nil {
		t.Fatalf("status.certificate is not PEM: %q (conditions %v)", issued.Status.Certificate, issued.Status.Conditions)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(env.Config().CAData)
	if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("the certificate does not verify against the server's CA for client auth: %v", err)
	}
	// An hour is short: not backdated at its end.
	if life := cert.NotAfter.Sub(cert.NotBefore); life != time.Hour+csrsigning.Backdate {
		t.Errorf("valid for %v, want an hour from now plus the backdating", life)
	}

	// The server takes the certificate as alice in dev.
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	cfg := rest.AnonymousClientConfig(env.Config())
	cfg.CertData = issued.Status.Certificate
	cfg.KeyData = pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
	as, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	review := &authenticationv1.SelfSubjectReview{}
	if err := as.Create(t.Context(), review); err != nil {
		t.Fatal(err)
	}
	if u := review.Status.UserInfo; u.Username != "alice" || !slices.Equal(u.Groups, []string{"dev", "system:authenticated"}) {
		t.Errorf("the certificate authenticates %q in %v, want alice in [dev system:authenticated]", u.Username, u.Groups)
	}

	// Server usages are not the client signer's to give.
	bad := &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{Name: "serving"},
		Spec: certificatesv1.CertificateSigningRequestSpec{
			Request: pemReq, SignerName: certificatesv1.KubeAPIServerClientSignerName, Usages: []certificatesv1.KeyUsage{"server auth"},
		},
	}
	if err := c.Create(t.Context(), bad); err != nil {
		t.Fatal(err)
	}
	failed := approveAndWait(t, c, bad)
	if len(failed.Status.Certificate) > 0 {
		t.Error("a certificate was issued for server auth")
	}
	last := failed.Status.Conditions[len(failed.Status.Conditions)-1]
	got := fmt.Sprintf("%s %s %s %s", last.Type, last.Status, last.Reason, last.Message)
	if want := "Failed True SignerValidationFailure invalid usage for client certificate: server auth"; got != want || last.LastUpdateTime.IsZero() {
		t.Errorf("condition %q at %v, want %q stamped", got, last.LastUpdateTime, want)
	}
}
