package namespace_test

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/internal/processtest"
	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/namespace"
)

// TestKubectlDeleteNamespace runs the built `setpoint server` and
// deletes, with kubectl, a namespace holding 100 objects, ConfigMaps and
// custom resources, a fifth of them held by a finalizer that a
// controller in this process removes. kubectl returns once the
// namespace and its objects are gone.
//
// The finalizers go only once the namespace reports them in its
// NamespaceFinalizersRemaining condition, which the namespace
// controller (not the server) writes: so the test passes only when
// `setpoint server` runs the controller.
func TestKubectlDeleteNamespace(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server")
	}
	kubectlBin := processtest.KubectlPath(t)
	srv, kubeconfig := processtest.StartServer(t, processtest.Build(t, "./cmd/setpoint")[0])
	// kubectl delete waits up to its --timeout for the namespace to go.
	k := &processtest.Kubectl{Bin: kubectlBin, Kubeconfig: kubeconfig, Home: t.TempDir(), Timeout: 40 * time.Second}
	cfg, err := client.Config(kubeconfig, "")
	must(t, err)
	c := newClient(t, cfg)
	ctx := context.Background()
	must(t, c.Create(ctx, widgetCRD()))
	must(t, c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "e2e"}}))
	heldCMs, heldWidgets := populate(t, c, "e2e", 100, 5)

	var released atomic.Int64
	runManager(t, cfg,
		releaser(corev1.SchemeGroupVersion.WithKind("ConfigMap"), &released),
		releaser(widgetGVK, &released))

	if _, err := k.Run(t, "", "delete", "namespace", "e2e", "--timeout=30s"); err != nil {
		ns := &corev1.Namespace{}
		_ = c.Get(ctx, types.NamespacedName{Name: "e2e"}, ns)
		t.Fatalf("%v\nreleased %d objects; the namespace's status: %+v\n(no NamespaceFinalizersRemaining condition means no namespace controller runs in the server)",
			err, released.Load(), ns.Status)
	}
	if n, want := released.Load(), int64(heldCMs+heldWidgets); n != want {
		t.Errorf("released %d objects, want %d", n, want)
	}
	err = c.Get(ctx, types.NamespacedName{Name: "e2e"}, &corev1.Namespace{})
	if !client.IsNotFound(err) {
		t.Errorf("the namespace after kubectl delete returned: %v, want NotFound", err)
	}
	for _, gvk := range []schema.GroupVersionKind{corev1.SchemeGroupVersion.WithKind("ConfigMap"), widgetGVK} {
		if left := listMeta(t, c, "e2e", gvk); len(left) > 0 {
			t.Errorf("%d %ss outlived the namespace", len(left), gvk.Kind)
		}
	}
	srv.Stop(t)
}

// releaser sets up a controller that removes testFinalizer from the
// objects of kind gvk being deleted, once their namespace reports the
// finalizers in its NamespaceFinalizersRemaining condition, counting
// each object it releases.
func releaser(gvk schema.GroupVersionKind, released *atomic.Int64) func(*manager.Manager) error {
	return func(m *manager.Manager) error {
		c := m.Client()
		r := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			obj := partialOf(gvk, req.Namespace, req.Name)
			if err := c.Get(ctx, req.NamespacedName, obj); err != nil {
				if client.IsNotFound(err) {
					return reconcile.Result{}, nil
				}
				return reconcile.Result{}, err
			}
			if obj.DeletionTimestamp == nil || !slices.Contains(obj.Finalizers, testFinalizer) {
				return reconcile.Result{}, nil
			}
			ns := &corev1.Namespace{}
			if err := c.Get(ctx, types.NamespacedName{Name: req.Namespace}, ns); err != nil {
				return reconcile.Result{}, err
			}
			if cond, _ := namespace.Condition(ns, corev1.NamespaceFinalizersRemaining); cond.Status != corev1.ConditionTrue {
				return reconcile.Result{RequeueAfter: 50 * time.Millisecond}, nil
			}
			patch := partialOf(gvk, req.Namespace, req.Name)
			if err := c.Patch(ctx, patch, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`)); err != nil {
				return reconcile.Result{}, err
			}
			released.Add(1)
			return reconcile.Result{}, nil
		})
		_, err := m.NewController(r, controller.Options{Name: fmt.Sprintf("release-%s", gvk.Kind)},
			controller.For[*metav1.PartialObjectMetadata](controller.WithKind(gvk)))
		return err
	}
}
