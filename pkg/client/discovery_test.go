package client_test

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// TestDiscoveryRefresh: a kind unknown at first is found once its CRD
// exists, whoever created it.
func TestDiscoveryRefresh(t *testing.T) {
	const interval = 300 * time.Millisecond
	tests := []struct {
		name string
		// viaSelf creates the CRD through the client under test, which
		// then forgets its misses at once.
		viaSelf bool
		// wantMissAtOnce is whether the kind is still unknown right after
		// the CRD is created (a remembered miss, not yet expired).
		wantMissAtOnce bool
	}{
		{"created by someone else", false, true},
		{"created through the same client", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := apiservertest.Start(t)
			c, _ := newClient(t, srv, client.Options{DiscoveryRefreshInterval: interval})
			other, _ := newClient(t, srv, client.Options{})
			ctx := ctx(t)
			createNamespace(t, c, "demo")
			get := func() error {
				return c.Get(ctx, types.NamespacedName{Namespace: "demo", Name: "w"}, widget("", "", nil))
			}
			if err := get(); !meta.IsNoMatchError(err) {
				t.Fatalf("before the CRD: got %v, want no match", err)
			}
			creator := other
			if tt.viaSelf {
				creator = c
			}
			if err := creator.Create(ctx, widgetCRD()); err != nil {
				t.Fatal(err)
			}
			if err := get(); meta.IsNoMatchError(err) != tt.wantMissAtOnce {
				t.Errorf("right after the CRD: got %v, want no match %v", err, tt.wantMissAtOnce)
			}
			deadline := time.Now().Add(5 * interval)
			for err := get(); !client.IsNotFound(err); err = get() {
				if time.Now().After(deadline) {
					t.Fatalf("kind not found after %v: %v", 5*interval, err)
				}
				time.Sleep(interval / 10)
			}
		})
	}
}

// TestDiscoveryMapper checks the mapper's answers, from aggregated
// discovery and from the legacy documents of a server that has none.
func TestDiscoveryMapper(t *testing.T) {
	for _, legacy := range []bool{false, true} {
		name := "aggregated"
		if legacy {
			name = "legacy"
		}
		t.Run(name, func(t *testing.T) {
			srv := apiservertest.Start(t)
			cfg := srv.Config
			var legacyRequests atomic.Int32
			if legacy {
				cfg = legacyProxy(t, srv, &legacyRequests)
			}
			c, err := client.New(cfg, client.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Create(ctx(t), widgetCRD()); err != nil {
				t.Fatal(err)
			}
			m := c.RESTMapper()
			tests := []struct {
				name string
				call func() (any, error)
				want string
			}{
				{"configmap mapping", func() (any, error) {
					r, err := m.RESTMapping(schema.GroupKind{Kind: "ConfigMap"}, "v1")
					if err != nil {
						return nil, err
					}
					return r.Resource.String() + " " + string(r.Scope.Name()), nil
				}, "/v1, Resource=configmaps namespace"},
				{"namespace mapping, preferred version", func() (any, error) {
					r, err := m.RESTMapping(schema.GroupKind{Kind: "Namespace"})
					if err != nil {
						return nil, err
					}
					return r.Resource.String() + " " + string(r.Scope.Name()), nil
				}, "/v1, Resource=namespaces root"},
				{"custom kind", func() (any, error) {
					r, err := m.RESTMapping(widgetGVK.GroupKind(), "v1")
					if err != nil {
						return nil, err
					}
					return r.Resource.String(), nil
				}, "example.com/v1, Resource=widgets"},
				{"kind for a plural", func() (any, error) { return m.KindFor(schema.GroupVersionResource{Resource: "leases"}) },
					"coordination.k8s.io/v1, Kind=Lease"},
				{"kind for a singular", func() (any, error) { return m.KindFor(schema.GroupVersionResource{Resource: "widget"}) },
					"example.com/v1, Kind=Widget"},
				{"core first where groups share a name", func() (any, error) { return m.KindFor(schema.GroupVersionResource{Resource: "events"}) },
					"/v1, Kind=Event"},
				{"group given", func() (any, error) {
					return m.ResourceFor(schema.GroupVersionResource{Group: "events.k8s.io", Resource: "events"})
				}, "events.k8s.io/v1, Resource=events"},
				{"singular", func() (any, error) { return m.ResourceSingularizer("widgets") }, "widget"},
				{"unknown kind", func() (any, error) { return m.RESTMapping(schema.GroupKind{Group: "nope.io", Kind: "Nope"}) },
					"error: no matches for kind \"Nope\" in group \"nope.io\""},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					v, err := tt.call()
					got := ""
					if err != nil {
						got = "error: " + err.Error()
					} else {
						got = toString(v)
					}
					if got != tt.want {
						t.Errorf("got %q, want %q", got, tt.want)
					}
				})
			}
			// And the client works through it.
			if err := c.Create(ctx(t), &corev1.Namespace{}); err == nil || !client.IsInvalid(err) {
				t.Errorf("create a nameless namespace: got %v, want Invalid", err)
			}
			if legacy && legacyRequests.Load() == 0 {
				t.Error("no per-group-version discovery requests went through the legacy proxy")
			}
		})
	}
}

func toString(v any) string {
	if s, ok := v.(interface{ String() string }); ok {
		return s.String()
	}
	if s, ok := v.(string); ok {
		return s
	}
	return "?"
}

// legacyProxy fronts srv with a proxy that strips the aggregated
// discovery media type from Accept, as an older server would not
// understand it, and counts the per-group-version documents fetched.
func legacyProxy(t *testing.T, srv *apiservertest.Server, perGV *atomic.Int32) *rest.Config {
	t.Helper()
	target, _ := url.Parse(srv.URL)
	transport, err := rest.TransportFor(srv.Config)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.Transport = transport
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.Header.Get("Accept"), "apidiscovery") {
			r.Header.Set("Accept", "application/json")
		}
		p := strings.Trim(r.URL.Path, "/")
		if parts := strings.Split(p, "/"); (parts[0] == "api" && len(parts) == 2) || (parts[0] == "apis" && len(parts) == 3) {
			perGV.Add(1)
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	return &rest.Config{Host: front.URL}
}

// TestDiscoveryRateLimit: asking again and again for a kind that does
// not exist costs one discovery load per interval, not one per call.
func TestDiscoveryRateLimit(t *testing.T) {
	srv := apiservertest.Start(t)
	c, rec := newClient(t, srv, client.Options{DiscoveryRefreshInterval: time.Hour})
	loads := func() int {
		n := 0
		for _, ex := range rec.exchanges() {
			if ex.path == "/apis" {
				n++
			}
		}
		return n
	}
	unknown := func(apiVersion string) client.Object {
		u := widget("demo", "x", nil)
		u.SetAPIVersion(apiVersion)
		return u
	}
	tests := []struct {
		name      string
		obj       client.Object
		calls     int
		wantLoads int
	}{
		{"the first lookup loads discovery", unknown("nope.example.com/v1"), 1, 1},
		{"repeated misses within the interval", unknown("nope.example.com/v1"), 20, 1},
		{"another unknown kind refreshes once", unknown("other.example.com/v1"), 20, 2},
	}
	for _, tt := range tests {
		for range tt.calls {
			if err := c.Get(ctx(t), types.NamespacedName{Namespace: "demo", Name: "x"}, tt.obj); !meta.IsNoMatchError(err) {
				t.Fatalf("%s: got %v, want no match", tt.name, err)
			}
		}
		if got := loads(); got != tt.wantLoads {
			t.Errorf("%s: %d discovery loads, want %d", tt.name, got, tt.wantLoads)
		}
	}
}
