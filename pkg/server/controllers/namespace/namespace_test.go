package namespace_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/namespace"
)

// TestDeleteNamespace deletes a namespace holding 100 objects,
// ConfigMaps and custom resources, a tenth of them held by a finalizer:
// the server refuses new objects in it, the controller deletes the rest
// and reports what the finalizers hold, and once the test lets them go
// the namespace goes too. Objects elsewhere are left alone.
func TestDeleteNamespace(t *testing.T) {
	srv := startServer(t)
	c := newClient(t, srv.Config)
	ctx := context.Background()
	must(t, c.Create(ctx, widgetCRD()))
	for _, name := range []string{"doomed", "bystander"} {
		must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}))
	}
	heldCMs, heldWidgets := populate(t, c, "doomed", 100, 5)
	populate(t, c, "bystander", 4, 0)
	runManager(t, srv.Config, withController(namespace.Options{}))

	must(t, c.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "doomed"}}))
	err := c.Create(ctx, newConfigMap("doomed", "late"))
	if !client.IsForbidden(err) {
		t.Errorf("creating in a terminating namespace: %v, want 403 Forbidden", err)
	}

	wantFinalizers := fmt.Sprintf("Some content in the namespace has finalizers remaining: %s in %d resource instances", testFinalizer, heldCMs+heldWidgets)
	wantRemaining := fmt.Sprintf("Some resources are remaining: configmaps. has %d resource instances, widgets.%s has %d resource instances", heldCMs, widgetGVK.Group, heldWidgets)
	ns := &corev1.Namespace{}
	envtest.Eventually(t, "the conditions to report the held objects", func() error {
		if err := c.Get(ctx, types.NamespacedName{Name: "doomed"}, ns); err != nil {
			return err
		}
		return wantConditions(ns, map[corev1.NamespaceConditionType]string{
			corev1.NamespaceFinalizersRemaining: wantFinalizers,
			corev1.NamespaceContentRemaining:    wantRemaining,
		})
	})
	if ns.Status.Phase != corev1.NamespaceTerminating {
		t.Errorf("phase %q, want Terminating", ns.Status.Phase)
	}
	for _, ct := range []corev1.NamespaceConditionType{corev1.NamespaceDeletionDiscoveryFailure, corev1.NamespaceDeletionContentFailure} {
		if cond, _ := namespace.Condition(ns, ct); cond.Status != corev1.ConditionFalse {
			t.Errorf("%s: %+v, want False", ct, cond)
		}
	}
	// Only the held objects are left, each marked for deletion.
	for gvk, want := range map[string]int{"ConfigMap": heldCMs, "Widget": heldWidgets} {
		kind := corev1.SchemeGroupVersion.WithKind(gvk)
		if gvk == "Widget" {
			kind = widgetGVK
		}
		left := listMeta(t, c, "doomed", kind)
		if len(left) != want {
			t.Errorf("%d %ss left, want %d", len(left), gvk, want)
		}
		for _, o := range left {
			if o.DeletionTimestamp == nil || !slices.Contains(o.Finalizers, testFinalizer) {
				t.Errorf("%s %s left without deletion or finalizer: %+v", gvk, o.Name, o.ObjectMeta)
			}
		}
	}

	release(t, c, "doomed")
	waitGone(t, c, "doomed")
	for _, kind := range []string{"ConfigMap", "Widget"} {
		gvk := corev1.SchemeGroupVersion.WithKind(kind)
		if kind == "Widget" {
			gvk = widgetGVK
		}
		if n := len(listMeta(t, c, "doomed", gvk)); n != 0 {
			t.Errorf("%d %ss outlived their namespace", n, kind)
		}
		if n := len(listMeta(t, c, "bystander", gvk)); n != 2 {
			t.Errorf("%d %ss left in another namespace, want 2", n, kind)
		}
	}
}

// TestReleasesOnlyItsFinalizer gives a namespace a second spec
// finalizer, which the controller must leave: the namespace then
// stays, emptied, with every deletion condition back to its ok state.
func TestReleasesOnlyItsFinalizer(t *testing.T) {
	srv := startServer(t)
	c := newClient(t, srv.Config)
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kept"}}
	must(t, c.Create(ctx, ns))
	ns.Spec.Finalizers = append(ns.Spec.Finalizers, "test.setpoint.dev/keep")
	must(t, c.UpdateSubresource(ctx, ns, "finalize"))
	must(t, c.Create(ctx, newConfigMap("kept", "one", testFinalizer)))
	runManager(t, srv.Config, withController(namespace.Options{}))

	must(t, c.Delete(ctx, ns))
	envtest.Eventually(t, "the held ConfigMap to be reported", func() error {
		must(t, c.Get(ctx, types.NamespacedName{Name: "kept"}, ns))
		return wantConditions(ns, map[corev1.NamespaceConditionType]string{
			corev1.NamespaceFinalizersRemaining: "Some content in the namespace has finalizers remaining: " + testFinalizer + " in 1 resource instances",
		})
	})
	held, _ := namespace.Condition(ns, corev1.NamespaceFinalizersRemaining)
	release(t, c, "kept")
	envtest.Eventually(t, "the kubernetes finalizer to be released", func() error {
		must(t, c.Get(ctx, types.NamespacedName{Name: "kept"}, ns))
		if slices.Contains(ns.Spec.Finalizers, corev1.FinalizerKubernetes) {
			return fmt.Errorf("spec.finalizers %v", ns.Spec.Finalizers)
		}
		return nil
	})
	if want := []corev1.FinalizerName{"test.setpoint.dev/keep"}; !slices.Equal(ns.Spec.Finalizers, want) {
		t.Errorf("spec.finalizers %v, want %v", ns.Spec.Finalizers, want)
	}
	for _, ct := range namespace.ConditionTypes {
		cond, ok := namespace.Condition(ns, ct)
		if ok := ok && cond.Status == corev1.ConditionFalse && cond.Reason == namespace.OKConditions[ct].Reason && cond.Message == namespace.OKConditions[ct].Message; !ok {
			t.Errorf("%s: %+v, want False %s", ct, cond, namespace.OKConditions[ct].Reason)
		}
	}
	// The condition went from True to False: a transition.
	if done, _ := namespace.Condition(ns, corev1.NamespaceFinalizersRemaining); done.LastTransitionTime.Before(&held.LastTransitionTime) {
		t.Errorf("lastTransitionTime went back: %v, then %v", held.LastTransitionTime, done.LastTransitionTime)
	}
}

// TestNamespaceDeletedBeforeStart finds, at start, a namespace deleted
// while the controller was not running, and finishes it.
func TestNamespaceDeletedBeforeStart(t *testing.T) {
	srv := startServer(t)
	c := newClient(t, srv.Config)
	ctx := context.Background()
	must(t, c.Create(ctx, widgetCRD()))
	must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "early"}}))
	populate(t, c, "early", 10, 0)
	must(t, c.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "early"}}))
	runManager(t, srv.Config, withController(namespace.Options{}))
	waitGone(t, c, "early")
}

// wantConditions checks that each condition type is True with the
// message given.
func wantConditions(ns *corev1.Namespace, want map[corev1.NamespaceConditionType]string) error {
	var errs []error
	for ct, msg := range want {
		cond, ok := namespace.Condition(ns, ct)
		if !ok || cond.Status != corev1.ConditionTrue || cond.Message != msg {
			errs = append(errs, fmt.Errorf("%s: %s %q, want True %q", ct, cond.Status, cond.Message, msg))
		}
	}
	return errors.Join(errs...)
}
