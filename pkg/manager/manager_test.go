package manager_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/internal/logtest"
	"github.com/setpoint-dev/setpoint/pkg/cache"
	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// logBuffer collects the logs a test checks.
type logBuffer = logtest.Buffer

// start runs m until the test ends and checks it stopped cleanly.
func start(t *testing.T, m *manager.Manager) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Start(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Start: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func newCM(t *testing.T, cfg *rest.Config, ns, name string, labels map[string]string) {
	t.Helper()
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ns != "default" {
		if err := c.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !client.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels}}
	if err := c.Create(context.Background(), cm); err != nil {
		t.Fatal(err)
	}
}

// TestManagerEndToEnd runs a controller whose reconciler reads through
// the manager's cached client and writes through it, and checks the
// probes, the metrics and a clean stop.
func TestManagerEndToEnd(t *testing.T) {
	cfg := apiservertest.Start(t).Config
	newCM(t, cfg, "default", "a", map[string]string{"app": "x"})
	var logs logBuffer
	m, err := manager.New(cfg, manager.Options{HealthAddr: "127.0.0.1:0", MetricsAddr: "127.0.0.1:0", Logger: logs.Logger(slog.LevelInfo)})
	if err != nil {
		t.Fatal(err)
	}
	var reconciled atomic.Int32
	rec := m.EventRecorder("marker")
	r := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		cm := &corev1.ConfigMap{}
		if err := m.Client().Get(ctx, req.NamespacedName, cm); err != nil {
			if client.IsNotFound(err) {
				return reconcile.Result{}, nil
			}
			return reconcile.Result{}, err
		}
		if cm.Data["seen"] == "yes" {
			rec.Event(cm, corev1.EventTypeNormal, "Marked", "seen by the marker")
			reconciled.Add(1)
			return reconcile.Result{}, nil
		}
		cm.Data = map[string]string{"seen": "yes"}
		return reconcile.Result{}, m.Client().Update(ctx, cm)
	})
	if _, err := m.NewController(r, controller.Options{Name: "marker"}, controller.For[*corev1.ConfigMap]()); err != nil {
		t.Fatal(err)
	}
	stop := start(t, m)
	envtest.EventuallyTrue(t, "the marker reconciled", func() bool { return reconciled.Load() > 0 })
	addrs := m.Addrs()
	if len(addrs) != 2 {
		t.Fatalf("Addrs() = %v, want two servers", addrs)
	}
	var health, metrics string
	for _, a := range addrs {
		if code, _ := get(t, "http://"+a+"/metrics"); code == http.StatusOK {
			metrics = a
		} else {
			health = a
		}
	}
	envtest.EventuallyTrue(t, "ready", func() bool { code, _ := get(t, "http://"+health+"/readyz"); return code == http.StatusOK })
	if code, body := get(t, "http://"+health+"/readyz?verbose"); code != http.StatusOK || !strings.Contains(body, "[+]controllers ok") {
		t.Errorf("/readyz?verbose = %d %q", code, body)
	}
	if code, _ := get(t, "http://"+health+"/healthz"); code != http.StatusOK {
		t.Errorf("/healthz = %d", code)
	}
	_, body := get(t, "http://"+metrics+"/metrics")
	for _, want := range []string{
		`controller_runtime_reconcile_total{controller="marker",result="success"}`,
		`workqueue_adds_total{name="marker"}`,
		`setpoint_reconcile_reasons_total{controller="marker",trigger="create"}`,
		`go_goroutines`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	envtest.EventuallyTrue(t, "the Marked event", func() bool {
		var evs corev1.EventList
		if err := m.APIReader().List(context.Background(), &evs, client.InNamespace("default")); err != nil {
			t.Fatal(err)
		}
		for _, e := range evs.Items {
			if e.Reason == "Marked" && e.InvolvedObject.Name == "a" && e.Source.Component == "marker" {
				return true
			}
		}
		return false
	})
	stop()
	if strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("a clean stop logged errors:\n%s", logs.String())
	}
}

// TestCachedClient reads through the manager's cache, in each of its
// forms: shared decoded objects, and compact (encoded) ones.
func TestCachedClient(t *testing.T) {
	for _, compact := range []bool{false, true} {
		t.Run(fmt.Sprintf("compact=%v", compact), func(t *testing.T) { testCachedClient(t, compact) })
	}
}

func testCachedClient(t *testing.T, compact bool) {
	cfg := apiservertest.Start(t).Config
	newCM(t, cfg, "a", "one", map[string]string{"app": "x"})
	newCM(t, cfg, "a", "two", map[string]string{"app": "y"})
	newCM(t, cfg, "b", "three", nil)
	m, err := manager.New(cfg, manager.Options{Namespaces: []string{"a"}, Cache: cache.FactoryOptions{Compact: compact}})
	if err != nil {
		t.Fatal(err)
	}
	start(t, m)
	ctx := context.Background()
	c := m.Client()

	cm := &corev1.ConfigMap{}
	if err := c.Get(ctx, types.NamespacedName{Namespace: "a", Name: "one"}, cm); err != nil {
		t.Fatal(err)
	}
	if cm.Name != "one" || cm.Kind != "ConfigMap" {
		t.Errorf("Get = %s %s", cm.Kind, cm.Name)
	}
	// The caller owns what it got: changing it leaves the cache alone.
	cm.Labels["app"] = "changed"
	again := &corev1.ConfigMap{}
	if err := c.Get(ctx, types.NamespacedName{Namespace: "a", Name: "one"}, again); err != nil || again.Labels["app"] != "x" {
		t.Errorf("the cache changed with a read copy: %v %v", err, again.Labels)
	}
	if err := c.Get(ctx, types.NamespacedName{Namespace: "a", Name: "missing"}, cm); !client.IsNotFound(err) {
		t.Errorf("Get missing = %v, want NotFound", err)
	}
	if err := c.Get(ctx, types.NamespacedName{Namespace: "b", Name: "three"}, cm); err == nil || client.IsNotFound(err) {
		t.Errorf("Get outside the namespaces = %v, want an error that is not NotFound", err)
	}

	tests := []struct {
		name string
		opts []client.ListOption
		want []string
	}{
		{"namespace", []client.ListOption{client.InNamespace("a")}, []string{"one", "two"}},
		{"labels", []client.ListOption{client.MatchingLabels{"app": "y"}}, []string{"two"}},
		{"field", []client.ListOption{client.MatchingFields{"metadata.name": "one"}}, []string{"one"}},
	}
	for _, tt := range tests {
		var list corev1.ConfigMapList
		if err := c.List(ctx, &list, tt.opts...); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var got []string
		for _, it := range list.Items {
			if it.Name != "kube-root-ca.crt" {
				got = append(got, it.Name)
			}
		}
		if fmt.Sprint(sorted(got)) != fmt.Sprint(tt.want) {
			t.Errorf("%s: List = %v, want %v", tt.name, got, tt.want)
		}
		for i := range list.Items {
			list.Items[i].Labels = map[string]string{"app": "changed"}
		}
	}
	var after corev1.ConfigMapList
	if err := c.List(ctx, &after, client.MatchingLabels{"app": "y"}); err != nil || len(after.Items) != 1 {
		t.Errorf("the cache changed with listed copies: %v %d", err, len(after.Items))
	}
	var u unstructured.Unstructured
	u.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMap"))
	if err := c.Get(ctx, types.NamespacedName{Namespace: "a", Name: "two"}, &u); err != nil || u.GetLabels()["app"] != "y" {
		t.Errorf("unstructured Get = %v %v", err, u.GetLabels())
	}
}

// TestReadinessSaysWhy runs a controller for a kind the server does
// not serve: the manager keeps running, healthy, and not ready, and
// /readyz names the missing kind.
func TestReadinessSaysWhy(t *testing.T) {
	cfg := apiservertest.Start(t).Config
	var logs logBuffer
	m, err := manager.New(cfg, manager.Options{HealthAddr: "127.0.0.1:0", CacheSyncTimeout: 200 * time.Millisecond, Logger: logs.Logger(slog.LevelInfo)})
	if err != nil {
		t.Fatal(err)
	}
	missing := schema.GroupVersionKind{Group: "missing.example.com", Version: "v1", Kind: "Thing"}
	if _, err := m.NewController(reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
		return reconcile.Result{}, nil
	}), controller.Options{Name: "things"}, controller.For[*unstructured.Unstructured](controller.WithKind(missing))); err != nil {
		t.Fatal(err)
	}
	start(t, m)
	envtest.EventuallyTrue(t, "the HTTP server", func() bool { return len(m.Addrs()) == 1 })
	addr := m.Addrs()[0]
	envtest.EventuallyTrue(t, "/readyz naming the missing kind", func() bool {
		code, body := get(t, "http://"+addr+"/readyz")
		return code == http.StatusInternalServerError && strings.Contains(body, "Thing") && strings.Contains(body, "did not sync")
	})
	if code, _ := get(t, "http://"+addr+"/healthz"); code != http.StatusOK {
		t.Errorf("/healthz = %d, want 200: the process is alive, only not ready", code)
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}
