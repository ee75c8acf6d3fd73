package controller_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// chanSource is a user's source: each name received on its channel
// asks for a reconcile of that ConfigMap in default.
type chanSource struct {
	names  chan string
	starts chan struct{} // one per Start
}

func (s *chanSource) Start(ctx context.Context, q controller.Queue) error {
	s.starts <- struct{}{}
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case name := <-s.names:
				q.Add(req(name), reconcile.Reason{Trigger: reconcile.TriggerGeneric, Kind: "Tick", Name: name})
			}
		}
	}()
	return nil
}

func TestUserSourceTriggersReconciles(t *testing.T) {
	tc := newTestCluster(t)
	createCM(t, tc.c, "a", nil)
	r := &recorder{}
	src := &chanSource{names: make(chan string), starts: make(chan struct{}, 2)}
	ctrl, err := controller.New(tc, r, controller.Options{Name: "user-source"}, controller.For[*corev1.ConfigMap](), src)
	if err != nil {
		t.Fatal(err)
	}
	for run := 1; run <= 2; run++ {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- ctrl.Start(ctx) }()
		<-src.starts // each run starts the source again
		envtest.EventuallyTrue(t, "the run's initial reconcile", func() bool { return r.count(req("a")) == 2*run-1 })
		src.names <- "a"
		src.names <- "b"
		envtest.EventuallyTrue(t, "the source's reconciles", func() bool { return r.count(req("a")) == 2*run && r.count(req("b")) == run })
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	got := r.reasons(req("b"))
	want := []string{"generic Tick b", "generic Tick b"}
	if !slices.Equal(got, want) {
		t.Errorf("reasons of b's reconciles = %q, want %q", got, want)
	}
	if got := r.reasons(req("a")); got[1] != "generic Tick a" {
		t.Errorf("reasons of a's reconcile after the tick = %q, want %q", got[1], "generic Tick a")
	}
}

func TestSourceStartErrors(t *testing.T) {
	errBroken := errors.New("broken source")
	tests := []struct {
		name string
		src  controller.Source
		want error // nil: any error
	}{
		{"user source fails", controller.SourceFunc(func(context.Context, controller.Queue) error { return errBroken }), errBroken},
		{"kind source without WithKind", controller.Owns[*unstructured.Unstructured](), nil},
	}
	tc := newTestCluster(t)
	for _, tt := range tests {
		ctrl, err := controller.New(tc, &recorder{}, controller.Options{Name: "broken"}, controller.For[*corev1.ConfigMap](), tt.src)
		if err != nil {
			t.Fatal(err)
		}
		err = ctrl.Start(context.Background())
		if err == nil || (tt.want != nil && !errors.Is(err, tt.want)) {
			t.Errorf("%s: Start = %v, want %v", tt.name, err, tt.want)
		}
	}
}

// queueFunc is a Queue outside any controller.
type queueFunc func(reconcile.Request, reconcile.Reason)

func (f queueFunc) Add(req reconcile.Request, reason reconcile.Reason) { f(req, reason) }

func TestKindSourceNeedsItsController(t *testing.T) {
	q := queueFunc(func(reconcile.Request, reconcile.Reason) {})
	for _, src := range []controller.Source{controller.For[*corev1.ConfigMap](), controller.Owns[*corev1.Secret]()} {
		if err := src.Start(context.Background(), q); err == nil {
			t.Errorf("%T started on a queue outside a controller", src)
		}
	}
}
