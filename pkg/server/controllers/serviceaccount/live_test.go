package serviceaccount_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/namespacetest"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/serviceaccount"
)

// defaultSA waits for the default account of ns and returns it.
func defaultSA(t *testing.T, c *client.Client, ns string) *corev1.ServiceAccount {
	t.Helper()
	sa := &corev1.ServiceAccount{}
	envtest.Eventually(t, "the default account in "+ns, func() error {
		return c.Get(t.Context(), types.NamespacedName{Namespace: ns, Name: serviceaccount.DefaultName}, sa)
	})
	return sa
}

// absent reports whether ns's default account is not there.
func absent(ctx context.Context, c *client.Client, ns string) error {
	sa := &corev1.ServiceAccount{}
	err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: serviceaccount.DefaultName}, sa)
	switch {
	case client.IsNotFound(err):
		return nil
	case err != nil:
		return err
	}
	return fmt.Errorf("the default account is there (uid %s, deletion %v)", sa.UID, sa.DeletionTimestamp)
}

// TestLive: every namespace, the server's own and new ones, gets a bare
// "default" account, and gets it back when it is deleted.
func TestLive(t *testing.T) {
	env := envtest.Start(t)
	c := env.Client()
	ctx := t.Context()
	for _, ns := range []string{"default", "kube-system", "kube-public", "kube-node-lease"} {
		defaultSA(t, c, ns)
	}
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}}); err != nil {
		t.Fatal(err)
	}
	sa := defaultSA(t, c, "team")
	if len(sa.Labels) != 0 || len(sa.Annotations) != 0 || sa.AutomountServiceAccountToken != nil || len(sa.Secrets) != 0 || len(sa.OwnerReferences) != 0 {
		t.Errorf("the created account is not bare: %+v", sa)
	}

	if err := c.Delete(ctx, sa); err != nil {
		t.Fatal(err)
	}
	envtest.Eventually(t, "the default account back", func() error {
		again := &corev1.ServiceAccount{}
		if err := c.Get(ctx, types.NamespacedName{Namespace: "team", Name: serviceaccount.DefaultName}, again); err != nil {
			return err
		}
		if again.UID == sa.UID {
			return errors.New("still the deleted account")
		}
		return nil
	})
}

// TestLiveTerminating: a namespace being deleted does not get its account
// back, and its deletion completes.
func TestLiveTerminating(t *testing.T) {
	logs := &envtest.Logs{}
	env := envtest.Start(t, envtest.WithLogger(logs.Logger(slog.LevelInfo)))
	c := env.Client()
	ctx := t.Context()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "doomed"}}
	if err := c.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	defaultSA(t, c, "doomed")
	namespacetest.DeleteHeld(t, c, "doomed", "the account", func(ctx context.Context) error { return absent(ctx, c, "doomed") })
	// Refused creates in the terminating namespace are expected, not
	// failures to report.
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "controller="+serviceaccount.ControllerName+" ") && strings.Contains(line, "level=ERROR") {
			t.Errorf("logged: %s", line)
		}
	}
}
