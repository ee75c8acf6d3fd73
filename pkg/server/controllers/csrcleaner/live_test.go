package csrcleaner_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"slices"
	"testing"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/internal/csrtest"
	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/csrcleaner"
)

// exists reports whether the request name is there.
func exists(t *testing.T, c *client.Client, name string) bool {
	t.Helper()
	err := c.Get(t.Context(), types.NamespacedName{Name: name}, &certificatesv1.CertificateSigningRequest{})
	if err != nil && !client.IsNotFound(err) {
		t.Fatal(err)
	}
	return err == nil
}

// TestLive: a request denied long ago goes at once, one denied now an
// hour later on the controller's clock, and a pending one stays.
func TestLive(t *testing.T) {
	scheme := client.NewScheme()
	if err := certificatesv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	env := envtest.Start(t, envtest.WithoutControllers(), envtest.WithScheme(scheme))
	c := env.Client()
	t0 := time.Now().Truncate(time.Second)
	fake := clock.NewFake(t0)

	req, _ := csrtest.Request(t, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "x"}})
	create := func(name string, deniedAt time.Time) {
		csr := &certificatesv1.CertificateSigningRequest{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: certificatesv1.CertificateSigningRequestSpec{
				Request: req, SignerName: "example.com/signer", Usages: []certificatesv1.KeyUsage{"client auth"},
			},
		}
		if err := c.Create(t.Context(), csr); err != nil {
			t.Fatal(err)
		}
		if deniedAt.IsZero() {
			return
		}
		csr.Status.Conditions = []certificatesv1.CertificateSigningRequestCondition{{
			Type: certificatesv1.CertificateDenied, Status: corev1.ConditionTrue, LastUpdateTime: metav1.NewTime(deniedAt),
		}}
		if err := c.UpdateSubresource(t.Context(), csr, "approval"); err != nil {
			t.Fatal(err)
		}
	}
	create("denied-long-ago", t0.Add(-2*time.Hour))
	create("denied-now", t0)
	create("pending", time.Time{})

	env.StartManager(t, func(m *manager.Manager) error {
		return csrcleaner.Setup(m, csrcleaner.Options{Clock: fake})
	}, envtest.WithManagerOptions(manager.Options{Client: client.Options{Scheme: scheme}}))

	envtest.Eventually(t, "the request denied long ago to go", func() error {
		if exists(t, c, "denied-long-ago") {
			return errors.New("still there")
		}
		return nil
	})
	envtest.Eventually(t, "a look at the other denial when it is due", func() error {
		if !slices.ContainsFunc(fake.Waiting(), t0.Add(csrcleaner.DeniedTTL).Equal) {
			return errors.New("no timer at its deadline")
		}
		return nil
	})
	if !exists(t, c, "denied-now") || !exists(t, c, "pending") {
		t.Fatal("a request went before its deadline")
	}
	fake.Step(csrcleaner.DeniedTTL)
	envtest.Eventually(t, "the request denied an hour ago to go", func() error {
		if exists(t, c, "denied-now") {
			return errors.New("still there")
		}
		return nil
	})
	if !exists(t, c, "pending") {
		t.Error("the pending request went a day early")
	}
}

func mustKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}
