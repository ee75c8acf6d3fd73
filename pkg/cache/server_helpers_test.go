package cache_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/pkg/cache"
	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// Tests against a real server use Setpoint's own client, as the product
// does: its ListerWatcher feeds the cache (typed for built-in kinds,
// unstructured for custom resources, metadata-only on request) and its
// writes make the changes the cache must see.

type U = *unstructured.Unstructured

var (
	cmGVK     = schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	widgetGVK = schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
)

// newClient is Setpoint's client for cfg, quiet.
func newClient(t testing.TB, cfg *rest.Config) *client.Client {
	t.Helper()
	c, err := client.New(cfg, client.Options{Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// newLW is the ListerWatcher of c for gvk in namespace ns.
func newLW(t testing.TB, c *client.Client, gvk schema.GroupVersionKind, ns string) cache.ListerWatcher {
	t.Helper()
	lw, err := c.ListerWatcher(gvk, ns)
	if err != nil {
		t.Fatal(err)
	}
	return lw
}

// cmLW lists and watches ConfigMaps in ns on the server cfg reaches.
func cmLW(t testing.TB, cfg *rest.Config, ns string) cache.ListerWatcher {
	t.Helper()
	return newLW(t, newClient(t, cfg), cmGVK, ns)
}

// requestLog records the requests a client makes, as
// "VERB path?query accept=<Accept header>".
type requestLog struct {
	mu   sync.Mutex
	reqs []string
}

func (l *requestLog) wrap(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			l.mu.Lock()
			l.reqs = append(l.reqs, r.Method+" "+r.URL.Path+"?"+r.URL.RawQuery+" accept="+r.Header.Get("Accept"))
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

// count returns how many requests contain every one of parts, except
// that a part written "!text" must not be there.
func (l *requestLog) count(parts ...string) int {
	n := 0
	for _, r := range l.all() {
		ok := true
		for _, p := range parts {
			if absent, isNot := strings.CutPrefix(p, "!"); isNot {
				ok = ok && !strings.Contains(r, absent)
			} else {
				ok = ok && strings.Contains(r, p)
			}
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
		if _, err := store.Create(ctx, storeKey(ns, name), b); err != nil {
			t.Fatal(err)
		}
	}
}

// storeKey is a ConfigMap's storage key.
func storeKey(ns, name string) string {
	return registry.PrefixFor(cmResource) + ns + "/" + name
}

func newCM(ns, name string, labels map[string]string, data ...string) cache.CM {
	c := cm(ns, name, "", data...)
	c.Labels = labels
	return c
}

// newWidget is a custom resource of the kind widgetCRD defines.
func newWidget(ns, name string, labels map[string]string, spec map[string]any) U {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetGroupVersionKind(widgetGVK)
	u.SetNamespace(ns)
	u.SetName(name)
	u.SetLabels(labels)
	return u
}

// widgetCRD defines Widgets: namespaced, any content kept.
func widgetCRD() *apiextensionsv1.CustomResourceDefinition {
	keep := true
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: widgetGVK.Group,
			Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural: "widgets", Singular: "widget", Kind: widgetGVK.Kind, ListKind: widgetGVK.Kind + "List",
			},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: widgetGVK.Version, Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: &keep,
				}},
			}},
		},
	}
}

// writer makes a test's changes through Setpoint's client, failing the
// test on any error. Writes read the server's copy back into the object
// given, so its resourceVersion is the one the cache will see.
type writer struct {
	t testing.TB
	c *client.Client
}

func newWriter(t testing.TB, cfg *rest.Config) writer {
	return writer{t: t, c: newClient(t, cfg)}
}

func (w writer) namespace(name string) {
	w.t.Helper()
	w.create(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
}

func (w writer) create(obj client.Object) {
	w.t.Helper()
	if err := w.c.Create(context.Background(), obj); err != nil {
		w.t.Fatal(err)
	}
}

func (w writer) update(obj client.Object) {
	w.t.Helper()
	if err := w.c.Update(context.Background(), obj); err != nil {
		w.t.Fatal(err)
	}
}

func (w writer) delete(obj client.Object) {
	w.t.Helper()
	if err := w.c.Delete(context.Background(), obj); err != nil {
		w.t.Fatal(err)
	}
}

// fastBackoff keeps server tests quick across restarts.
var fastBackoff = cache.Backoff{Initial: 20 * time.Millisecond, Max: 200 * time.Millisecond, ResetAfter: time.Minute, Jitter: 0.5}

func serverOpts[T cache.Object](name string) cache.InformerOptions[T] {
	return cache.InformerOptions[T]{ReflectorOptions: cache.ReflectorOptions[T]{Name: name, Logger: discardLogger(), Backoff: fastBackoff}}
}

// syncOrFail waits for informers to sync.
func syncOrFail(t testing.TB, syncers ...cache.Syncer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := cache.WaitForSync(ctx, syncers...); err != nil {
		t.Fatal(err)
	}
}

// keys returns the sorted keys of objs.
func keys[T cache.Object](objs []T) []string {
	var out []string
	for _, o := range objs {
		out = append(out, cache.Key(o))
	}
	slices.Sort(out)
	return out
}

// sorted returns s sorted, for comparing notifications whose order
// across keys is not defined.
func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
