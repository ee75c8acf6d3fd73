package rootcacertpublisher_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/namespacetest"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/rootcacertpublisher"
)

// check returns ns's bundle if it holds ca as kube publishes it.
func check(ctx context.Context, c *client.Client, ns string, ca []byte) (*corev1.ConfigMap, error) {
	cm := &corev1.ConfigMap{}
	if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: rootcacertpublisher.ConfigMapName}, cm); err != nil {
		return nil, err
	}
	if want := map[string]string{"ca.crt": string(ca)}; !maps.Equal(cm.Data, want) {
		return nil, fmt.Errorf("data %q, want %q", cm.Data, want)
	}
	if got := cm.Annotations["kubernetes.io/description"]; got != rootcacertpublisher.Description {
		return nil, fmt.Errorf("description %q", got)
	}
	return cm, nil
}

// published waits until ns holds the bundle ca and returns it.
func published(t *testing.T, c *client.Client, ns string, ca []byte) *corev1.ConfigMap {
	t.Helper()
	var cm *corev1.ConfigMap
	envtest.Eventually(t, "the CA bundle in "+ns, func() (err error) {
		cm, err = check(t.Context(), c, ns, ca)
		return err
	})
	return cm
}

// absent reports whether ns's bundle is not there.
func absent(ctx context.Context, c *client.Client, ns string) error {
	cm := &corev1.ConfigMap{}
	err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: rootcacertpublisher.ConfigMapName}, cm)
	switch {
	case client.IsNotFound(err):
		return nil
	case err != nil:
		return err
	}
	return fmt.Errorf("the bundle is there (uid %s, deletion %v)", cm.UID, cm.DeletionTimestamp)
}

// TestLive: every namespace gets the CA the server is reached with, and
// gets it back when it is deleted or changed.
func TestLive(t *testing.T) {
	env := envtest.Start(t)
	c := env.Client()
	ctx := t.Context()
	ca := env.Config().CAData
	if len(ca) == 0 {
		t.Fatal("the test server's config has no CA")
	}
	for _, ns := range []string{"default", "kube-system", "kube-public", "kube-node-lease"} {
		published(t, c, ns, ca)
	}
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}}); err != nil {
		t.Fatal(err)
	}
	cm := published(t, c, "team", ca)
	if len(cm.Labels) != 0 || len(cm.Annotations) != 1 || len(cm.BinaryData) != 0 || len(cm.OwnerReferences) != 0 {
		t.Errorf("the ConfigMap holds more than kube's: %+v", cm)
	}

	if err := c.Delete(ctx, cm); err != nil {
		t.Fatal(err)
	}
	envtest.Eventually(t, "the deleted bundle back", func() error {
		again, err := check(ctx, c, "team", ca)
		if err != nil {
			return err
		}
		if again.UID == cm.UID {
			return errors.New("still the deleted ConfigMap")
		}
		cm = again
		return nil
	})

	edits := []struct {
		name string
		edit func(*corev1.ConfigMap)
	}{
		{"forged data", func(cm *corev1.ConfigMap) { cm.Data["ca.crt"] = "forged" }},
		{"an added key", func(cm *corev1.ConfigMap) { cm.Data["extra"] = "x" }},
		{"no description", func(cm *corev1.ConfigMap) { delete(cm.Annotations, "kubernetes.io/description") }},
	}
	for _, e := range edits {
		e.edit(cm)
		if err := c.Update(ctx, cm); err != nil {
			t.Fatalf("%s: %v", e.name, err)
		}
		edited := cm.ResourceVersion
		envtest.Eventually(t, "the bundle put back after "+e.name, func() error {
			got, err := check(ctx, c, "team", ca)
			if err != nil {
				return err
			}
			cm = got
			if cm.ResourceVersion == edited {
				return errors.New("not rewritten")
			}
			return nil
		})
	}
}

// TestLiveTerminating: a namespace being deleted does not get its bundle
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
	published(t, c, "doomed", env.Config().CAData)
	namespacetest.DeleteHeld(t, c, "doomed", "the bundle", func(ctx context.Context) error { return absent(ctx, c, "doomed") })
	// Refused creates in the terminating namespace are expected, not
	// failures to report.
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "controller="+rootcacertpublisher.ControllerName+" ") && strings.Contains(line, "level=ERROR") {
			t.Errorf("logged: %s", line)
		}
	}
}
