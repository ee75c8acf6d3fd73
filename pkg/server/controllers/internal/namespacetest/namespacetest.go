// Package namespacetest drives a namespace through a deletion that is
// held Terminating, for the live tests of the built-in controllers that
// keep an object in every active namespace (the default ServiceAccount,
// kube-root-ca.crt): they must not bring it back while the namespace
// terminates, and must not hold up its end.
package namespacetest

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
)

// holdFinalizer keeps a namespace Terminating while a test looks at it.
const holdFinalizer = "test.setpoint.dev/hold"

// DeleteHeld deletes the namespace ns, holding it Terminating with a
// ConfigMap that carries a finalizer, and checks that gone (the
// controller's object is absent) becomes and stays true while it
// terminates. It then releases the hold and waits until the namespace
// is gone. what names the controller's object in failures.
func DeleteHeld(t *testing.T, c *client.Client, ns, what string, gone func(ctx context.Context) error) {
	t.Helper()
	ctx := t.Context()
	held := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "held", Finalizers: []string{holdFinalizer}}}
	if err := c.Create(ctx, held); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	envtest.Eventually(t, what+" deleted with its namespace", func() error { return gone(ctx) })
	envtest.Consistently(t, what+" to stay deleted", func() error {
		got := &corev1.Namespace{}
		if err := c.Get(ctx, types.NamespacedName{Name: ns}, got); err != nil {
			return err
		}
		if got.Status.Phase != corev1.NamespaceTerminating {
			return fmt.Errorf("namespace phase %q", got.Status.Phase)
		}
		return gone(ctx)
	})
	if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: "held"}, held); err != nil {
		t.Fatal(err)
	}
	held.Finalizers = nil
	if err := c.Update(ctx, held); err != nil {
		t.Fatal(err)
	}
	envtest.Eventually(t, "the namespace gone", func() error {
		err := c.Get(ctx, types.NamespacedName{Name: ns}, &corev1.Namespace{})
		if client.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("namespace still there (%v)", err)
	})
}
