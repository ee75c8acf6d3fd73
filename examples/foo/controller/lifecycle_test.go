package controller_test

import (
	"log/slog"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	foov1 "github.com/setpoint-dev/setpoint/examples/foo/api/v1"
	foocontroller "github.com/setpoint-dev/setpoint/examples/foo/controller"
	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/finalizer"
	"github.com/setpoint-dev/setpoint/pkg/manager"
)

// runOperator runs the Foo controller as the binary sets it up, in a
// manager limited to namespaces (all when none).
func runOperator(t *testing.T, e *env, namespaces ...string) *envtest.Logs {
	t.Helper()
	logs := &envtest.Logs{}
	e.StartManager(t, func(m *manager.Manager) error {
		return foocontroller.Setup(m, &foocontroller.Reconciler{RequeueAfter: time.Minute})
	}, envtest.WithManagerOptions(manager.Options{Namespaces: namespaces}), envtest.WithLogs(logs, slog.LevelDebug))
	return logs
}

func (e *env) createFoo(t *testing.T, ns, name, value string) *foov1.Foo {
	t.Helper()
	foo := &foov1.Foo{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: foov1.FooSpec{Value: value}}
	if err := e.client.Create(t.Context(), foo); err != nil {
		t.Fatal(err)
	}
	return foo
}

// getFoo reads a Foo from the server; nil once it is gone.
func (e *env) getFoo(t *testing.T, foo *foov1.Foo) *foov1.Foo {
	t.Helper()
	got := &foov1.Foo{}
	err := e.client.Get(t.Context(), types.NamespacedName{Namespace: foo.Namespace, Name: foo.Name}, got)
	if client.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// getConfigMap reads foo's ConfigMap; nil when there is none.
func (e *env) getConfigMap(t *testing.T, foo *foov1.Foo) *corev1.ConfigMap {
	t.Helper()
	cm := &corev1.ConfigMap{}
	err := e.client.Get(t.Context(), types.NamespacedName{Namespace: foo.Namespace, Name: foocontroller.ConfigMapName(foo)}, cm)
	if client.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return cm
}

// waitReady waits until foo's Ready condition has status and reason at
// foo's current generation, and returns the Foo as it was then.
func (e *env) waitReady(t *testing.T, foo *foov1.Foo, status metav1.ConditionStatus, reason string) *foov1.Foo {
	t.Helper()
	var got *foov1.Foo
	envtest.EventuallyTrue(t, "Ready="+string(status)+" "+reason+" on "+foo.Name, func() bool {
		got = e.getFoo(t, foo)
		c := meta.FindStatusCondition(got.Status.Conditions, foocontroller.ConditionReady)
		return c != nil && c.Status == status && c.Reason == reason && c.ObservedGeneration == got.Generation
	})
	return got
}

// TestLifecycle follows one Foo from creation to deletion: not Ready
// while its value is not bar, Ready once it is, its ConfigMap
// following the value, and both gone after a delete.
func TestLifecycle(t *testing.T) {
	e := newEnv(t)
	runOperator(t, e)

	foo := e.createFoo(t, "default", "x", "baz")
	got := e.waitReady(t, foo, metav1.ConditionUnknown, foocontroller.ReasonFooNotBar)
	if !finalizer.Has(got, foocontroller.Finalizer) {
		t.Errorf("finalizers = %v, want %s", got.Finalizers, foocontroller.Finalizer)
	}
	if cm := e.getConfigMap(t, got); cm == nil || cm.Data[foocontroller.ValueKey] != "baz" {
		t.Errorf("ConfigMap = %+v, want value baz", cm)
	} else if ref := metav1.GetControllerOf(cm); ref == nil || ref.UID != got.UID {
		t.Errorf("ConfigMap's controller = %+v, want the Foo (uid %s)", ref, got.UID)
	}

	got.Spec.Value = foocontroller.WantedValue
	if err := e.client.Update(t.Context(), got); err != nil {
		t.Fatal(err)
	}
	got = e.waitReady(t, foo, metav1.ConditionTrue, foocontroller.ReasonFooIsBar)
	if got.Generation != 2 {
		t.Errorf("generation = %d, want 2 after one spec change", got.Generation)
	}
	envtest.EventuallyTrue(t, "the ConfigMap to follow the value", func() bool {
		cm := e.getConfigMap(t, got)
		return cm != nil && cm.Data[foocontroller.ValueKey] == foocontroller.WantedValue
	})

	if err := e.client.Delete(t.Context(), got); err != nil {
		t.Fatal(err)
	}
	envtest.EventuallyTrue(t, "the Foo to be deleted", func() bool { return e.getFoo(t, foo) == nil })
	if cm := e.getConfigMap(t, got); cm != nil {
		t.Errorf("ConfigMap still there after the Foo went: %+v", cm)
	}
}

// TestReadyFromTheStart: a Foo created with value bar goes straight to
// Ready, and a ConfigMap deleted behind the operator's back comes back.
func TestReadyFromTheStart(t *testing.T) {
	e := newEnv(t)
	runOperator(t, e)
	foo := e.createFoo(t, "default", "y", foocontroller.WantedValue)
	got := e.waitReady(t, foo, metav1.ConditionTrue, foocontroller.ReasonFooIsBar)
	if c := meta.FindStatusCondition(got.Status.Conditions, foocontroller.ConditionReady); c.ObservedGeneration != 1 {
		t.Errorf("observedGeneration = %d, want 1", c.ObservedGeneration)
	}

	cm := e.getConfigMap(t, got)
	if cm == nil {
		t.Fatal("no ConfigMap for a Ready Foo")
	}
	if err := e.client.Delete(t.Context(), cm); err != nil {
		t.Fatal(err)
	}
	envtest.EventuallyTrue(t, "the ConfigMap to be recreated", func() bool {
		again := e.getConfigMap(t, got)
		return again != nil && again.UID != cm.UID
	})
}

// TestNamespaced: an operator limited to one namespace leaves Foos
// elsewhere alone.
func TestNamespaced(t *testing.T) {
	e := newEnv(t)
	for _, ns := range []string{"watched", "ignored"} {
		if err := e.client.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	ignored := e.createFoo(t, "ignored", "z", foocontroller.WantedValue)
	runOperator(t, e, "watched")
	watched := e.createFoo(t, "watched", "z", foocontroller.WantedValue)
	e.waitReady(t, watched, metav1.ConditionTrue, foocontroller.ReasonFooIsBar)
	// The operator has no informer for the other namespace, so nothing
	// can reconcile the Foo there, now or later.
	if got := e.getFoo(t, ignored); len(got.Finalizers) > 0 || len(got.Status.Conditions) > 0 {
		t.Errorf("Foo outside the watched namespace was touched: %+v", got)
	}
}
