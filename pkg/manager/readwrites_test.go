package manager_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/predicate"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// TestReadYourWritesThroughTheCachedClient has a ConfigMap controller
// whose reconciler keeps a Secret it does not watch, read through the
// manager's cached client: each reconcile reads the Secret and writes
// it back, and asks to run again at once. The wait for the previous
// reconcile's writes covers the cached client's Secret informer too, so
// no write conflicts.
func TestReadYourWritesThroughTheCachedClient(t *testing.T) {
	cfg := apiservertest.Start(t).Config
	newCM(t, cfg, "default", "src", nil)
	m, err := manager.New(cfg, manager.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ctrl *controller.Controller
	var writes, conflicts atomic.Int32
	r := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		if writes.Load() >= 20 {
			return reconcile.Result{}, nil
		}
		key := types.NamespacedName{Namespace: req.Namespace, Name: "derived-" + req.Name}
		s := &corev1.Secret{}
		err := m.Client().Get(ctx, key, s)
		switch {
		case client.IsNotFound(err):
			s = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}
			err = m.Client().Create(ctx, s)
		case err == nil:
			s.StringData = map[string]string{"n": fmt.Sprint(writes.Load())}
			err = m.Client().Update(ctx, s)
		}
		if client.IsConflict(err) || client.IsAlreadyExists(err) {
			conflicts.Add(1)
		}
		if err != nil {
			return reconcile.Result{}, err
		}
		writes.Add(1)
		ctrl.Enqueue(req)
		return reconcile.Result{}, nil
	})
	ctrl, err = m.NewController(r, controller.Options{Name: "derive"}, controller.For[*corev1.ConfigMap](
		controller.WithPredicates(predicate.Funcs[*corev1.ConfigMap]{
			CreateFunc: func(cm *corev1.ConfigMap) bool { return cm.Name == "src" },
		})))
	if err != nil {
		t.Fatal(err)
	}
	start(t, m)
	envtest.EventuallyTrue(t, "20 writes", func() bool { return writes.Load() >= 20 })
	if n := conflicts.Load(); n != 0 {
		t.Errorf("%d writes conflicted: a reconcile read the Secret before the cache had the previous write", n)
	}
}
