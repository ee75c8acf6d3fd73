package cache

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/pkg/registry"
	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// Tests drive the cache against a real server through client-go's
// dynamic and metadata clients (tests only: the product uses Setpoint's
// own client). Their List methods return concrete list types, so each
// needs a small adapter to be a ListerWatcher.

type U = *unstructured.Unstructured

var (
	cmGVR = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	cmGVK = schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
)

// dynLW lists and watches through whatever dynamic client get returns,
// so a test can point it at a restarted server.
type dynLW struct {
	get func() dynamic.ResourceInterface
}

func (d dynLW) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	l, err := d.get().List(ctx, opts)
	if err != nil {
		return nil, err
	}
	return l, nil
}

func (d dynLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return d.get().Watch(ctx, opts)
}

func newDynLW(t testing.TB, cfg *rest.Config, ns string) dynLW {
	t.Helper()
	ri := dynamic.NewForConfigOrDie(cfg).Resource(cmGVR).Namespace(ns)
	return dynLW{get: func() dynamic.ResourceInterface { return ri }}
}

// metaLW is the same for the metadata client.
type metaLW struct{ ri metadata.ResourceInterface }

func (m metaLW) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	l, err := m.ri.List(ctx, opts)
	if err != nil {
		return nil, err
	}
	return l, nil
}

func (m metaLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return m.ri.Watch(ctx, opts)
}

// requestLog records the requests a client makes, as "VERB path?query".
type requestLog struct {
	mu   sync.Mutex
	reqs []string
}

func (l *requestLog) wrap(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			l.mu.Lock()
			l.reqs = append(l.reqs, r.Method+" "+r.URL.Path+"?"+r.URL.RawQuery)
			l.mu.Unlock()
			return rt.RoundTrip(r)
		})
	}
	return cfg
}

func (l *requestLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.reqs...)
}

// count returns how many requests contain every one of parts.
func (l *requestLog) count(parts ...string) int {
	n := 0
	for _, r := range l.all() {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(r, p)
		}
		if ok {
			n++
		}
	}
	return n
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// seedConfigMaps writes n ConfigMaps straight into storage, as the server
// would store them (no resourceVersion), each with a managedFields entry
// like server-side apply leaves. Much faster than n HTTP creates.
func seedConfigMaps(t testing.TB, store storage.Interface, ns string, n int) {
	t.Helper()
	ctx := context.Background()
	prefix := registry.PrefixFor(cmGVR.GroupResource()) + ns + "/"
	now := time.Now().UTC().Format(time.RFC3339)
	for i := range n {
		name := fmt.Sprintf("cm-%05d", i)
		obj := map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{
				"name": name, "namespace": ns, "uid": string(uuid.NewUUID()), "creationTimestamp": now,
				"labels": map[string]any{"app": "bench", "shard": fmt.Sprint(i % 10)},
				"managedFields": []any{map[string]any{
					"manager": "kubectl", "operation": "Apply", "apiVersion": "v1", "time": now, "fieldsType": "FieldsV1",
					"fieldsV1": map[string]any{
						"f:data":     map[string]any{"f:a": map[string]any{}, "f:b": map[string]any{}, "f:c": map[string]any{}},
						"f:metadata": map[string]any{"f:labels": map[string]any{"f:app": map[string]any{}, "f:shard": map[string]any{}}},
					},
				}},
			},
			"data": map[string]any{"a": strings.Repeat("a", 100), "b": strings.Repeat("b", 100), "c": name},
		}
		b, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := store.Create(ctx, prefix+name, b); err != nil {
			t.Fatal(err)
		}
	}
}

// storeKey is a ConfigMap's storage key.
func storeKey(ns, name string) string {
	return registry.PrefixFor(cmGVR.GroupResource()) + ns + "/" + name
}

func newCM(ns, name string, labels map[string]string, data ...string) U {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap"}}
	u.SetNamespace(ns)
	u.SetName(name)
	if labels != nil {
		u.SetLabels(labels)
	}
	d := map[string]any{}
	for i := 0; i+1 < len(data); i += 2 {
		d[data[i]] = data[i+1]
	}
	u.Object["data"] = d
	return u
}

// client is a dynamic client for test writes.
type client struct {
	t   testing.TB
	dyn dynamic.Interface
}

func newClient(t testing.TB, cfg *rest.Config) *client {
	return &client{t: t, dyn: dynamic.NewForConfigOrDie(cfg)}
}

func (c *client) namespace(name string) {
	c.t.Helper()
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": name}}}
	if _, err := c.dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).Create(context.Background(), ns, metav1.CreateOptions{}); err != nil {
		c.t.Fatal(err)
	}
}

func (c *client) create(u U) U {
	c.t.Helper()
	out, err := c.dyn.Resource(cmGVR).Namespace(u.GetNamespace()).Create(context.Background(), u, metav1.CreateOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	return out
}

func (c *client) update(u U) U {
	c.t.Helper()
	out, err := c.dyn.Resource(cmGVR).Namespace(u.GetNamespace()).Update(context.Background(), u, metav1.UpdateOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	return out
}

func (c *client) delete(ns, name string) {
	c.t.Helper()
	if err := c.dyn.Resource(cmGVR).Namespace(ns).Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
		c.t.Fatal(err)
	}
}

// ucalls records what a handler of unstructured objects is told.
type ucalls struct {
	mu  sync.Mutex
	got []string
}

func (c *ucalls) record(s string) {
	c.mu.Lock()
	c.got = append(c.got, s)
	c.mu.Unlock()
}

// len is how many calls were recorded since the last take.
func (c *ucalls) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.got)
}

func (c *ucalls) OnAdd(o U, initial bool) {
	s := "add " + Key(o)
	if initial {
		s += " initial"
	}
	c.record(s)
}

func (c *ucalls) OnUpdate(old, new U) {
	c.record(fmt.Sprintf("update %s %s->%s", Key(new), old.GetResourceVersion(), new.GetResourceVersion()))
}

func (c *ucalls) OnDelete(o U) { c.record("delete " + Key(o) + " " + o.GetResourceVersion()) }

func (c *ucalls) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	g := c.got
	c.got = nil
	return g
}

// fastBackoff keeps server tests quick across restarts.
var fastBackoff = Backoff{Initial: 20 * time.Millisecond, Max: 200 * time.Millisecond, ResetAfter: time.Minute, Jitter: 0.5}

func serverOpts(name string) InformerOptions[U] {
	return InformerOptions[U]{ReflectorOptions: ReflectorOptions[U]{Name: name, Logger: discardLogger(), Backoff: fastBackoff}}
}

// syncOrFail waits for informers to sync.
func syncOrFail(t testing.TB, syncers ...Syncer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := WaitForSync(ctx, syncers...); err != nil {
		t.Fatal(err)
	}
}

// eventually polls cond for up to ten seconds.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
