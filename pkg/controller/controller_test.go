package controller_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/predicate"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

var cmGVK = corev1.SchemeGroupVersion.WithKind("ConfigMap")

// run starts ctrl and stops it when the test ends, failing the test if
// Start fails.
func run(t *testing.T, ctrl *controller.Controller) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ctrl.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Start: %v", err)
		}
	})
}

func createCM(t *testing.T, c *client.Client, name string, labels map[string]string) *corev1.ConfigMap {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Labels: labels}}
	if err := c.Create(context.Background(), cm); err != nil {
		t.Fatal(err)
	}
	return cm
}

func req(name string) reconcile.Request {
	return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "default", Name: name}}
}

// recorder is a reconciler that records each call's reasons and checks
// that no two workers ever hold one request.
type recorder struct {
	mu       sync.Mutex
	calls    map[reconcile.Request][]string
	inFlight map[reconcile.Request]bool
	overlap  atomic.Bool
	next     func(ctx context.Context, req reconcile.Request, n int) (reconcile.Result, error)
}

func (r *recorder) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	r.mu.Lock()
	if r.calls == nil {
		r.calls, r.inFlight = map[reconcile.Request][]string{}, map[reconcile.Request]bool{}
	}
	if r.inFlight[req] {
		r.overlap.Store(true)
	}
	r.inFlight[req] = true
	r.calls[req] = append(r.calls[req], reconcile.ReasonsFrom(ctx).String())
	n := len(r.calls[req])
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.inFlight[req] = false
		r.mu.Unlock()
	}()
	if r.next != nil {
		return r.next(ctx, req, n)
	}
	return reconcile.Result{}, nil
}

func (r *recorder) reasons(req reconcile.Request) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.calls[req]...)
}

func (r *recorder) count(req reconcile.Request) int { return len(r.reasons(req)) }

func TestReconcilesEveryObjectOnceAtATime(t *testing.T) {
	tc := newTestCluster(t)
	for i := range 40 {
		createCM(t, tc.c, fmt.Sprint("cm-", i), nil)
	}
	r := &recorder{next: func(context.Context, reconcile.Request, int) (reconcile.Result, error) {
		time.Sleep(time.Millisecond) // let workers overlap
		return reconcile.Result{}, nil
	}}
	ctrl, err := controller.New(tc, r, controller.Options{Name: "every", Workers: 4}, controller.For[*corev1.ConfigMap]())
	if err != nil {
		t.Fatal(err)
	}
	run(t, ctrl)
	for i := range 40 {
		envtest.EventuallyTrue(t, "a reconcile of every ConfigMap", func() bool { return r.count(req(fmt.Sprint("cm-", i))) > 0 })
	}
	if got := r.reasons(req("cm-7"))[0]; got != "create ConfigMap default/cm-7" {
		t.Errorf("reasons of the first reconcile = %q, want the create", got)
	}
	// Hammer one object with updates: they merge, and never run twice at once.
	cm := &corev1.ConfigMap{}
	if err := tc.c.Get(context.Background(), types.NamespacedName{Namespace: "default", Name: "cm-1"}, cm); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		cm.Data = map[string]string{"i": fmt.Sprint(i)}
		if err := tc.c.Update(context.Background(), cm); err != nil {
			t.Fatal(err)
		}
	}
	envtest.EventuallyTrue(t, "the last update reconciled", func() bool {
		rs := r.reasons(req("cm-1"))
		return strings.HasPrefix(rs[len(rs)-1], "update ConfigMap default/cm-1")
	})
	if r.overlap.Load() {
		t.Error("two workers reconciled one object at once")
	}
}

func TestOwnsMapsToTheController(t *testing.T) {
	tc := newTestCluster(t)
	owner := createCM(t, tc.c, "owner", nil)
	yes := true
	owned := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "owned",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID, Controller: &yes}}}}
	stranger := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "stranger",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "owner", UID: "x", Controller: &yes}}}}
	r := &recorder{}
	ctrl, err := controller.New(tc, r, controller.Options{Name: "owns"}, controller.For[*corev1.ConfigMap](), controller.Owns[*corev1.Secret]())
	if err != nil {
		t.Fatal(err)
	}
	run(t, ctrl)
	envtest.EventuallyTrue(t, "the owner's first reconcile", func() bool { return r.count(req("owner")) == 1 })
	for _, s := range []*corev1.Secret{stranger, owned} {
		if err := tc.c.Create(context.Background(), s); err != nil {
			t.Fatal(err)
		}
	}
	envtest.EventuallyTrue(t, "a reconcile for the owned secret", func() bool { return r.count(req("owner")) >= 2 })
	if got, want := r.reasons(req("owner"))[1], "create Secret default/owned"; got != want {
		t.Errorf("reasons = %q, want %q", got, want)
	}
	if n := r.count(req("stranger")); n != 0 {
		t.Errorf("a secret owned by a Pod reconciled a ConfigMap named after it %d times", n)
	}
}

func TestRetriesRequeuesAndTerminalErrors(t *testing.T) {
	tc := newTestCluster(t)
	for _, n := range []string{"flaky", "terminal", "later", "panics"} {
		createCM(t, tc.c, n, nil)
	}
	r := &recorder{next: func(_ context.Context, rq reconcile.Request, n int) (reconcile.Result, error) {
		switch {
		case rq.Name == "flaky" && n <= 2:
			return reconcile.Result{}, errors.New("not yet")
		case rq.Name == "terminal":
			return reconcile.Result{}, reconcile.TerminalError(errors.New("spec is invalid"))
		case rq.Name == "later" && n == 1:
			return reconcile.Result{RequeueAfter: 50 * time.Millisecond}, nil
		case rq.Name == "panics" && n == 1:
			panic("boom")
		}
		return reconcile.Result{}, nil
	}}
	reg := prometheus.NewRegistry()
	m, err := controller.NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	ctrl, err := controller.New(tc, r, controller.Options{Name: "retries", Workers: 2, Metrics: m}, controller.For[*corev1.ConfigMap]())
	if err != nil {
		t.Fatal(err)
	}
	run(t, ctrl)
	envtest.EventuallyTrue(t, "flaky succeeding on its third try", func() bool { return r.count(req("flaky")) == 3 })
	envtest.EventuallyTrue(t, "the requeue", func() bool { return r.count(req("later")) == 2 })
	envtest.EventuallyTrue(t, "the retry after the panic", func() bool { return r.count(req("panics")) == 2 })
	envtest.EventuallyTrue(t, "the terminal failure", func() bool { return r.count(req("terminal")) == 1 })
	time.Sleep(100 * time.Millisecond) // a retry of the terminal error would come within 5 ms
	tests := []struct {
		req  reconcile.Request
		want []string
	}{
		{req("flaky"), []string{"create ConfigMap default/flaky", "retry", "retry"}},
		{req("later"), []string{"create ConfigMap default/later", "requeue"}},
		{req("panics"), []string{"create ConfigMap default/panics", "retry"}},
		{req("terminal"), []string{"create ConfigMap default/terminal"}},
	}
	for _, tt := range tests {
		if got := r.reasons(tt.req); fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%s: reasons %q, want %q", tt.req.Name, got, tt.want)
		}
	}
	for _, tt := range []struct {
		metric prometheus.Collector
		want   float64
	}{
		{m.Total().WithLabelValues("retries", "error"), 4},
		{m.Terminal().WithLabelValues("retries"), 1},
		{m.Panics().WithLabelValues("retries"), 1},
		{m.Total().WithLabelValues("retries", "requeue_after"), 1},
		{m.Reasons().WithLabelValues("retries", "retry"), 3},
	} {
		if got := testutil.ToFloat64(tt.metric); got != tt.want {
			t.Errorf("%v = %v, want %v", tt.metric, got, tt.want)
		}
	}
}

func TestPredicatesAndTimeout(t *testing.T) {
	tc := newTestCluster(t)
	cm := createCM(t, tc.c, "a", map[string]string{"v": "1"})
	var timedOut atomic.Bool
	r := &recorder{next: func(ctx context.Context, _ reconcile.Request, n int) (reconcile.Result, error) {
		if n == 1 {
			<-ctx.Done() // the first reconcile overruns its timeout
			timedOut.Store(true)
			return reconcile.Result{}, ctx.Err()
		}
		return reconcile.Result{}, nil
	}}
	ctrl, err := controller.New(tc, r, controller.Options{Name: "preds", ReconcileTimeout: 50 * time.Millisecond},
		controller.For[*corev1.ConfigMap](controller.WithPredicates(predicate.LabelsChanged())))
	if err != nil {
		t.Fatal(err)
	}
	run(t, ctrl)
	envtest.EventuallyTrue(t, "the retry after the timeout", func() bool { return r.count(req("a")) == 2 })
	if !timedOut.Load() {
		t.Fatal("the first reconcile's context did not time out")
	}
	// A data change does not pass LabelsChanged; a label change does.
	cm.Data = map[string]string{"x": "y"}
	if err := tc.c.Update(context.Background(), cm); err != nil {
		t.Fatal(err)
	}
	cm.Labels["v"] = "2"
	if err := tc.c.Update(context.Background(), cm); err != nil {
		t.Fatal(err)
	}
	envtest.EventuallyTrue(t, "the label change reconciled", func() bool { return r.count(req("a")) == 3 })
	if got := r.reasons(req("a"))[2]; got != "update ConfigMap default/a" {
		t.Errorf("reasons = %q, want one update (the data change filtered out)", got)
	}
}

// TestReadYourWrites has a reconciler that reads its object from the
// cache and writes it back with that resourceVersion, and asks to run
// again at once every time. Without the wait for its own writes, the
// next reconcile often reads the state it replaced and gets a Conflict.
func TestReadYourWrites(t *testing.T) {
	tc := newTestCluster(t)
	createCM(t, tc.c, "counter", nil)
	lister := tc.lister(t, cmGVK)
	var ctrl *controller.Controller
	var conflicts, writes atomic.Int32
	r := reconcile.Func(func(ctx context.Context, rq reconcile.Request) (reconcile.Result, error) {
		obj, ok := lister.Get(rq.String())
		if !ok {
			return reconcile.Result{}, errors.New("not in the cache")
		}
		cm := obj.(*corev1.ConfigMap).DeepCopy()
		if writes.Load() >= 30 {
			return reconcile.Result{}, nil
		}
		cm.Data = map[string]string{"n": fmt.Sprint(writes.Load())}
		if err := tc.c.Update(ctx, cm); err != nil {
			if client.IsConflict(err) {
				conflicts.Add(1)
			}
			return reconcile.Result{}, err
		}
		writes.Add(1)
		ctrl.Enqueue(rq) // runs again as soon as this one is done
		return reconcile.Result{}, nil
	})
	ctrl, err := controller.New(tc, r, controller.Options{Name: "ryw"}, controller.For[*corev1.ConfigMap](controller.WithPredicates(predicate.Funcs[*corev1.ConfigMap]{
		// Only the Enqueue drives it, not its own update events.
		UpdateFunc: func(old, new *corev1.ConfigMap) bool { return false },
	})))
	if err != nil {
		t.Fatal(err)
	}
	run(t, ctrl)
	envtest.EventuallyTrue(t, "30 writes", func() bool { return writes.Load() >= 30 })
	if n := conflicts.Load(); n != 0 {
		t.Errorf("%d conflicts: a reconcile read its object before the cache had its previous write", n)
	}
}

func TestCacheSyncTimeoutSaysWhy(t *testing.T) {
	tc := newTestCluster(t)
	missing := schema.GroupVersionKind{Group: "missing.example.com", Version: "v1", Kind: "Thing"}
	ctrl, err := controller.New(tc, &recorder{}, controller.Options{Name: "missing", CacheSyncTimeout: 200 * time.Millisecond},
		controller.For[*unstructured.Unstructured](controller.WithKind(missing)))
	if err != nil {
		t.Fatal(err)
	}
	if err := ctrl.Ready(); err == nil {
		t.Error("Ready before Start = nil")
	}
	run(t, ctrl)
	envtest.EventuallyTrue(t, "Ready to say why the caches did not sync", func() bool {
		err := ctrl.Ready()
		return err != nil && strings.Contains(err.Error(), "did not sync") && strings.Contains(err.Error(), "Thing")
	})
}

// TestRestarts stops a controller and starts it again, as a manager does
// across leadership terms: the second run reconciles everything again.
func TestRestarts(t *testing.T) {
	tc := newTestCluster(t)
	createCM(t, tc.c, "a", nil)
	r := &recorder{}
	ctrl, err := controller.New(tc, r, controller.Options{Name: "restarts"}, controller.For[*corev1.ConfigMap]())
	if err != nil {
		t.Fatal(err)
	}
	for run := 1; run <= 2; run++ {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- ctrl.Start(ctx) }()
		envtest.EventuallyTrue(t, "the run's reconcile", func() bool { return r.count(req("a")) == run && ctrl.Ready() == nil })
		if err := ctrl.Start(ctx); err == nil {
			t.Error("a second concurrent Start succeeded")
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if ctrl.Ready() == nil {
			t.Error("Ready after Start returned = nil")
		}
	}
}

func TestNewValidates(t *testing.T) {
	tc := &testCluster{}
	tests := []struct {
		name    string
		opts    controller.Options
		sources []controller.Source
	}{
		{"no name", controller.Options{}, []controller.Source{controller.For[*corev1.ConfigMap]()}},
		{"no For", controller.Options{Name: "x"}, []controller.Source{controller.Owns[*corev1.Secret]()}},
		{"two For", controller.Options{Name: "x"}, []controller.Source{controller.For[*corev1.ConfigMap](), controller.For[*corev1.Secret]()}},
	}
	for _, tt := range tests {
		if _, err := controller.New(tc, &recorder{}, tt.opts, tt.sources...); err == nil {
			t.Errorf("%s: New succeeded", tt.name)
		}
	}
}
