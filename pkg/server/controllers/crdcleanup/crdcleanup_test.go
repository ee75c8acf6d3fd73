package crdcleanup_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/crdcleanup"
)

// TestDeleteCRD deletes a namespaced CRD with objects in three
// namespaces, some held by a finalizer: the CRD reports Terminating
// while they are, the others are gone, and once the test lets the held
// ones go the CRD goes too. Defined again, the kind has no objects: none
// outlived the CRD.
func TestDeleteCRD(t *testing.T) {
	srv := startServer(t)
	c := newClient(t, srv.Config())
	ctx := context.Background()
	crd := newCRD("widgets", "Widget", apiextensionsv1.NamespaceScoped)
	gvk := schema.GroupVersionKind{Group: "test.setpoint.dev", Version: "v1", Kind: "Widget"}
	must(t, c.Create(ctx, crd.DeepCopy()))
	// Another kind, to be left alone.
	other := newCRD("gadgets", "Gadget", apiextensionsv1.NamespaceScoped)
	otherGVK := gvk.GroupVersion().WithKind("Gadget")
	must(t, c.Create(ctx, other))
	held := 0
	for _, ns := range []string{"a", "b", "c"} {
		must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
		for i := range 10 {
			var fins []string
			if i < 2 {
				fins = []string{testFinalizer}
				held++
			}
			must(t, c.Create(ctx, newObject(gvk, ns, fmt.Sprintf("w%d", i), fins...)))
		}
		must(t, c.Create(ctx, newObject(otherGVK, ns, "g")))
	}
	runManager(t, srv)

	must(t, c.Delete(ctx, crd))
	var left []metav1.PartialObjectMetadata
	envtest.Eventually(t, "the unheld objects to go", func() error {
		var err error
		if left, err = listAllMeta(c, gvk); err != nil {
			return err
		}
		if len(left) != held {
			return fmt.Errorf("%d left, want %d", len(left), held)
		}
		return nil
	})
	for _, o := range left {
		if o.DeletionTimestamp == nil || !slices.Contains(o.Finalizers, testFinalizer) {
			t.Errorf("%s/%s left without deletion or finalizer", o.Namespace, o.Name)
		}
	}
	got := &apiextensionsv1.CustomResourceDefinition{}
	envtest.Eventually(t, "the CRD to report the deletion", func() error {
		if err := c.Get(ctx, types.NamespacedName{Name: crd.Name}, got); err != nil {
			return err
		}
		return wantCondition(terminatingCondition(got), apiextensionsv1.ConditionTrue, crdcleanup.ReasonInstanceDeletionInProgress, crdcleanup.MsgInProgress)
	})
	if !slices.Contains(got.Finalizers, apiextensionsv1.CustomResourceCleanupFinalizer) {
		t.Errorf("finalizers %v while objects remain", got.Finalizers)
	}

	for _, o := range left {
		p := &metav1.PartialObjectMetadata{}
		p.SetGroupVersionKind(gvk)
		p.Namespace, p.Name = o.Namespace, o.Name
		must(t, c.Patch(ctx, p, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`)))
	}
	envtest.Eventually(t, "the CRD to go", func() error {
		err := c.Get(ctx, types.NamespacedName{Name: crd.Name}, got)
		if client.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		return errors.New("still there")
	})

	must(t, c.Create(ctx, crd.DeepCopy()))
	items, err := listAllMeta(c, gvk)
	must(t, err)
	if len(items) != 0 {
		t.Errorf("%d objects outlived their CRD", len(items))
	}
	if items, err := listAllMeta(c, otherGVK); err != nil || len(items) != 3 {
		t.Errorf("the other kind: %d objects (%v), want 3", len(items), err)
	}
}

// TestDeleteClusterScopedCRD deletes a cluster-scoped CRD that another
// finalizer keeps: the controller deletes the objects, marks the
// deletion completed and removes only its own finalizer.
func TestDeleteClusterScopedCRD(t *testing.T) {
	srv := startServer(t)
	c := newClient(t, srv.Config())
	ctx := context.Background()
	crd := newCRD("gizmos", "Gizmo", apiextensionsv1.ClusterScoped)
	crd.Finalizers = []string{"test.setpoint.dev/keep"}
	gvk := schema.GroupVersionKind{Group: "test.setpoint.dev", Version: "v1", Kind: "Gizmo"}
	must(t, c.Create(ctx, crd))
	for i := range 5 {
		must(t, c.Create(ctx, newObject(gvk, "", fmt.Sprintf("g%d", i))))
	}
	runManager(t, srv)

	must(t, c.Delete(ctx, crd))
	got := &apiextensionsv1.CustomResourceDefinition{}
	envtest.Eventually(t, "the cleanup finalizer to go", func() error {
		if err := c.Get(ctx, types.NamespacedName{Name: crd.Name}, got); err != nil {
			return err
		}
		if slices.Contains(got.Finalizers, apiextensionsv1.CustomResourceCleanupFinalizer) {
			return fmt.Errorf("finalizers %v", got.Finalizers)
		}
		return nil
	})
	if want := []string{"test.setpoint.dev/keep"}; !slices.Equal(got.Finalizers, want) {
		t.Errorf("finalizers %v, want %v", got.Finalizers, want)
	}
	if err := wantCondition(terminatingCondition(got), apiextensionsv1.ConditionFalse, crdcleanup.ReasonInstanceDeletionCompleted, crdcleanup.MsgCompleted); err != nil {
		t.Error(err)
	}
	items, err := listAllMeta(c, gvk)
	must(t, err)
	if len(items) != 0 {
		t.Errorf("%d objects left", len(items))
	}
}

func TestKindOf(t *testing.T) {
	crd := newCRD("widgets", "Widget", apiextensionsv1.NamespaceScoped)
	crd.Spec.Versions = []apiextensionsv1.CustomResourceDefinitionVersion{
		{Name: "v1alpha1", Served: false},
		{Name: "v1beta1", Served: true},
		{Name: "v1", Served: true, Storage: true},
		{Name: "v2", Served: true},
	}
	if got := crdcleanup.KindOf(crd); got.Version != "v1" || got.Kind != "Widget" || got.Group != "test.setpoint.dev" {
		t.Errorf("kindOf = %v, want the storage version", got)
	}
}
