package controller_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	foov1 "github.com/setpoint-dev/setpoint/examples/foo/api/v1"
	foocontroller "github.com/setpoint-dev/setpoint/examples/foo/controller"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// TestRequeueResult: a Foo that is not Ready asks to be looked at again
// after the configured interval; a Ready one does not.
func TestRequeueResult(t *testing.T) {
	e := newEnv(t)
	r := &foocontroller.Reconciler{Client: e.client, RequeueAfter: 42 * time.Second, Logger: quietLogger()}
	for _, tt := range []struct {
		value string
		want  time.Duration
	}{
		{"baz", 42 * time.Second},
		{foocontroller.WantedValue, 0},
	} {
		foo := e.createFoo(t, "default", "v-"+tt.value, tt.value)
		req := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: foo.Namespace, Name: foo.Name}}
		res, err := r.Reconcile(t.Context(), req)
		if err != nil {
			t.Fatalf("value %s: %v", tt.value, err)
		}
		if res.RequeueAfter != tt.want {
			t.Errorf("value %s: RequeueAfter = %v, want %v", tt.value, res.RequeueAfter, tt.want)
		}
	}
}

// TestRequeueRuns: the requeue a not-Ready Foo asks for happens, with
// no event about the Foo to cause it.
func TestRequeueRuns(t *testing.T) {
	e := newEnv(t)
	var mu sync.Mutex
	requeued := 0
	e.StartManager(t, func(m *manager.Manager) error {
		r := &foocontroller.Reconciler{Client: m.Client(), RequeueAfter: 50 * time.Millisecond, Logger: m.Logger()}
		counting := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			if reconcile.ReasonsFrom(ctx).Has(reconcile.TriggerRequeue) {
				mu.Lock()
				requeued++
				mu.Unlock()
			}
			return r.Reconcile(ctx, req)
		})
		_, err := m.NewController(counting, controller.Options{Name: foocontroller.Name}, controller.For[*foov1.Foo]())
		return err
	}, envtest.WithLogs(&envtest.Logs{}, slog.LevelDebug))

	foo := e.createFoo(t, "default", "w", "baz")
	e.waitReady(t, foo, metav1.ConditionUnknown, foocontroller.ReasonFooNotBar)
	envtest.EventuallyTrue(t, "a reconcile caused by the requeue", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return requeued > 0
	})
}
