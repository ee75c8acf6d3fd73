package server_test

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/pkg/server"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers"
	"github.com/setpoint-dev/setpoint/pkg/server/serviceaccount"
	"github.com/setpoint-dev/setpoint/pkg/storage/memory"
)

// TestServiceAccountKeyShared: replicas sharing a store and a PKI
// directory sign with the key kept there, so a token one issues
// authenticates at the other; a server with its own directory refuses
// it.
func TestServiceAccountKeyShared(t *testing.T) {
	store := memory.New()
	t.Cleanup(func() { _ = store.Close() })
	pki := t.TempDir()
	replica := func(pkiDir string) *server.Server {
		srv, err := server.New(server.Config{
			Store: store, PKIDir: pkiDir, Listen: "127.0.0.1:0",
			Controllers: controllers.Options{Disabled: controllers.Names()},
			Logger:      slog.New(slog.DiscardHandler),
		})
		if err != nil {
			t.Fatal(err)
		}
		start(t, srv)
		return srv
	}
	first, second, stranger := replica(pki), replica(pki), replica(t.TempDir())

	key, err := os.ReadFile(filepath.Join(pki, serviceaccount.KeyFile))
	if err != nil {
		t.Fatalf("the PKI directory holds no signing key: %v", err)
	}
	if _, err := serviceaccount.ParsePrivateKeyPEM(key); err != nil {
		t.Fatalf("%s: %v", serviceaccount.KeyFile, err)
	}
	if _, err := os.Stat(filepath.Join(pki, serviceaccount.PublicKeyFile)); err != nil {
		t.Errorf("the PKI directory holds no %s: %v", serviceaccount.PublicKeyFile, err)
	}

	admin := kubernetes.NewForConfigOrDie(first.AdminConfig())
	ctx := t.Context()
	if _, err := admin.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "app"}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	tr, err := admin.CoreV1().ServiceAccounts("default").CreateToken(ctx, "app", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	whoami := func(srv *server.Server) (string, error) {
		cfg := rest.AnonymousClientConfig(srv.AdminConfig())
		cfg.BearerToken = tr.Status.Token
		review, err := kubernetes.NewForConfigOrDie(cfg).AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
		if err != nil {
			return "", err
		}
		return review.Status.UserInfo.Username, nil
	}
	for name, srv := range map[string]*server.Server{"the issuing replica": first, "the other replica": second} {
		if got, err := whoami(srv); err != nil || got != "system:serviceaccount:default:app" {
			t.Errorf("%s: got %q, %v; want system:serviceaccount:default:app", name, got, err)
		}
	}
	if _, err := whoami(stranger); !apierrors.IsUnauthorized(err) {
		t.Errorf("a server with another key: got %v, want Unauthorized", err)
	}
}
