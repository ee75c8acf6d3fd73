package apiserver_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers"
)

// loopbackClient reaches srv as the server's own identity, the one the
// built-in controllers use.
func loopbackClient(t testing.TB, srv *apiservertest.Server) *client {
	t.Helper()
	hc, err := rest.HTTPClientFor(srv.Loopback)
	if err != nil {
		t.Fatal(err)
	}
	return &client{t: t, base: srv.URL, http: hc, srv: srv}
}

// gauge reads one sample of the server's /metrics, 0 if absent.
func gauge(c *client, name, labels string) float64 {
	c.t.Helper()
	r := c.do("GET", "/metrics", nil)
	sc := bufio.NewScanner(strings.NewReader(string(r.body)))
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, name+labels+" "); ok {
			v, err := strconv.ParseFloat(rest, 64)
			if err != nil {
				c.t.Fatalf("metric %s: %v", line, err)
			}
			return v
		}
	}
	return 0
}

// waitGauge waits until a gauge reaches want.
func waitGauge(c *client, name, labels string, want float64) {
	c.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for gauge(c, name, labels) != want {
		if time.Now().After(deadline) {
			c.t.Fatalf("%s%s never reached %v (now %v)", name, labels, want, gauge(c, name, labels))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// hold sends a request that stays in flight until the test ends or the
// returned func is called: a write whose body never ends, a watch, or a
// read whose response is larger than the HTTP/2 stream window and is not
// read.
func hold(c *client, method, path string) (stop func()) {
	c.t.Helper()
	ctx, cancel := context.WithCancel(c.t.Context())
	var body io.Reader
	var pw *io.PipeWriter
	if method != "GET" {
		var pr *io.PipeReader
		pr, pw = io.Pipe()
		body = pr
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	done := make(chan struct{})
	started := make(chan int, 1)
	go func() {
		defer close(done)
		resp, err := c.http.Do(req)
		if err != nil {
			started <- 0
			return
		}
		started <- resp.StatusCode
		<-ctx.Done()
		resp.Body.Close()
	}()
	if pw != nil {
		// The first byte makes sure the server is reading, so the request
		// is admitted, and the rest never comes.
		go func() { _, _ = pw.Write([]byte("{")) }()
	} else if code := <-started; code != http.StatusOK {
		c.t.Fatalf("%s %s: got %d, want a 200 stream", method, path, code)
	}
	stop = func() {
		cancel()
		if pw != nil {
			pw.Close()
		}
		<-done
	}
	c.t.Cleanup(stop)
	return stop
}

const (
	inflightMetric = "apiserver_current_inflight_requests"
	readOnlyLabel  = `{request_kind="readOnly"}`
	mutatingLabel  = `{request_kind="mutating"}`
)

// TestInflightLimits fills every pool (limits of one) and checks who still
// gets through: nobody but the server's own identity and leader-election
// traffic, which has seats of its own.
func TestInflightLimits(t *testing.T) {
	srv := apiservertest.StartWith(t, apiservertest.Options{Configure: func(cfg *apiserver.Config) {
		cfg.MaxRequestsInflight, cfg.MaxMutatingRequestsInflight, cfg.MaxWatches, cfg.LeaseRequestsInflight = 1, 1, 1, 1
	}})
	admin, self := clientFor(t, srv), loopbackClient(t, srv)
	admin.createNamespace("busy")
	self.must(http.StatusCreated, "POST", "/api/v1/namespaces/busy/configmaps", configMap("busy", "existing", nil))

	// Over 7 MiB of ConfigMaps: a list of them outgrows the client's 4 MiB
	// stream window, so the server blocks writing it while it is not read.
	admin.createNamespace("bulk")
	for i := range 8 {
		self.must(http.StatusCreated, "POST", "/api/v1/namespaces/bulk/configmaps", configMap("bulk", fmt.Sprintf("c%d", i), map[string]any{"v": strings.Repeat("x", 900<<10)}))
	}

	hold(admin, "GET", "/api/v1/namespaces/busy/configmaps?watch=1")
	hold(admin, "POST", "/api/v1/namespaces/busy/configmaps")
	waitGauge(admin, inflightMetric, mutatingLabel, 1)
	stopRead := hold(admin, "GET", "/api/v1/namespaces/bulk/configmaps")
	waitGauge(admin, inflightMetric, readOnlyLabel, 1)

	lease := func(ns, name string) map[string]any {
		return map[string]any{"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
			"metadata": map[string]any{"name": name, "namespace": ns}, "spec": map[string]any{"holderIdentity": "a"}}
	}
	tests := []struct {
		name   string
		c      *client
		method string
		path   string
		body   any
		want   int
	}{
		{"admin create", admin, "POST", "/api/v1/namespaces/busy/configmaps", configMap("busy", "a", nil), http.StatusTooManyRequests},
		{"admin get", admin, "GET", "/api/v1/namespaces/busy/configmaps/existing", nil, http.StatusTooManyRequests},
		{"admin list", admin, "GET", "/api/v1/configmaps", nil, http.StatusTooManyRequests},
		{"admin watch", admin, "GET", "/api/v1/configmaps?watch=1&timeoutSeconds=1", nil, http.StatusTooManyRequests},
		{"admin lease in default", admin, "POST", "/apis/coordination.k8s.io/v1/namespaces/default/leases", lease("default", "x"), http.StatusTooManyRequests},
		{"admin lease in kube-system", admin, "POST", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases", lease("kube-system", "mine"), http.StatusCreated},
		{"admin lease renewal", admin, "PUT", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/mine", lease("kube-system", "mine"), http.StatusOK},
		{"admin node lease", admin, "GET", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/none", nil, http.StatusNotFound},
		{"loopback create", self, "POST", "/api/v1/namespaces/busy/configmaps", configMap("busy", "b", nil), http.StatusCreated},
		{"loopback get", self, "GET", "/api/v1/namespaces/busy/configmaps/existing", nil, http.StatusOK},
		{"loopback watch", self, "GET", "/api/v1/configmaps?watch=1&timeoutSeconds=1", nil, http.StatusOK},
		{"discovery is not limited", admin, "GET", "/api/v1", nil, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := *tt.c
			c.t = t
			r := c.do(tt.method, tt.path, tt.body)
			if r.code != tt.want {
				t.Fatalf("got %d, want %d: %s", r.code, tt.want, r.body)
			}
			if tt.want != http.StatusTooManyRequests {
				return
			}
			// kube-apiserver's answer, word for word.
			if got, want := string(r.body), "Too many requests, please try again later.\n"; got != want {
				t.Errorf("body %q, want %q", got, want)
			}
			if got := r.header.Get("Retry-After"); got != "1" {
				t.Errorf("Retry-After %q, want 1", got)
			}
			if got := r.header.Get("Content-Type"); got != "text/plain; charset=utf-8" {
				t.Errorf("Content-Type %q, want text/plain; charset=utf-8", got)
			}
		})
	}
	stopRead()
	// Once the holders are done, the seats come back.
	waitGauge(admin, inflightMetric, readOnlyLabel, 0)
	admin.must(http.StatusOK, "GET", "/api/v1/namespaces/busy/configmaps/existing", nil)
	if got := gauge(admin, "apiserver_dropped_requests_total", readOnlyLabel); got != 3 {
		t.Errorf("apiserver_dropped_requests_total%s = %v, want 3", readOnlyLabel, got)
	}
	if got := gauge(admin, "apiserver_dropped_requests_total", mutatingLabel); got != 2 {
		t.Errorf("apiserver_dropped_requests_total%s = %v, want 2", mutatingLabel, got)
	}
}

// TestInflightWatchesApart: open watches hold neither read-only seats nor
// the in-flight gauge, as in kube-apiserver; they have a limit of their
// own.
func TestInflightWatchesApart(t *testing.T) {
	srv := apiservertest.StartWith(t, apiservertest.Options{Configure: func(cfg *apiserver.Config) {
		cfg.MaxRequestsInflight, cfg.MaxWatches = 1, 3
	}})
	c := clientFor(t, srv)
	var stops []func()
	for i := range 3 {
		stops = append(stops, hold(c, "GET", fmt.Sprintf("/api/v1/namespaces/ns%d/configmaps?watch=1", i)))
	}
	waitGauge(c, "apiserver_longrunning_requests", `{component="apiserver",group="",resource="configmaps",scope="namespace",subresource="",verb="WATCH",version="v1"}`, 3)
	if got := gauge(c, inflightMetric, readOnlyLabel); got != 0 {
		t.Errorf("%s%s = %v with three watches open, want 0", inflightMetric, readOnlyLabel, got)
	}
	c.must(http.StatusOK, "GET", "/api/v1/configmaps", nil)
	if r := c.do("GET", "/api/v1/configmaps?watch=1&timeoutSeconds=1", nil); r.code != http.StatusTooManyRequests {
		t.Errorf("fourth watch: got %d, want 429", r.code)
	}
	stops[0]()
	waitGauge(c, "apiserver_longrunning_requests", `{component="apiserver",group="",resource="configmaps",scope="namespace",subresource="",verb="WATCH",version="v1"}`, 2)
	if r := c.do("GET", "/api/v1/configmaps?watch=1&timeoutSeconds=1", nil); r.code != http.StatusOK {
		t.Errorf("watch after one ended: got %d, want 200", r.code)
	}
}

// TestControllersUnderSaturation: with every pool the admin can use held
// (mutating, watches, the reserved lease seats), the built-in controllers,
// on the loopback identity, still renew their lease and finish a namespace
// deletion.
func TestControllersUnderSaturation(t *testing.T) {
	srv := apiservertest.StartWith(t, apiservertest.Options{
		Configure: func(cfg *apiserver.Config) {
			cfg.MaxRequestsInflight, cfg.MaxMutatingRequestsInflight, cfg.MaxWatches, cfg.LeaseRequestsInflight = 1, 1, 1, 1
		},
		BuiltinControllers: true,
		ControllerOptions:  controllers.Options{LeaderElection: true, Logger: slog.New(slog.DiscardHandler)},
	})
	admin, self := clientFor(t, srv), loopbackClient(t, srv)
	const lease = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/setpoint-controllers"
	var renewed string
	waitFor(t, "the controllers' lease", func() bool {
		r := self.do("GET", lease, nil)
		if r.code != http.StatusOK {
			return false
		}
		renewed = str(r.json(t)["spec"].(map[string]any)["renewTime"])
		return renewed != ""
	})

	hold(admin, "GET", "/api/v1/namespaces/default/configmaps?watch=1")
	hold(admin, "POST", "/api/v1/namespaces/default/configmaps")
	hold(admin, "POST", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases")
	waitGauge(admin, inflightMetric, mutatingLabel, 2)
	if r := admin.do("POST", "/api/v1/namespaces", `{"metadata":{"name":"doomed"}}`); r.code != http.StatusTooManyRequests {
		t.Fatalf("admin create while saturated: got %d, want 429", r.code)
	}

	self.must(http.StatusCreated, "POST", "/api/v1/namespaces", `{"metadata":{"name":"doomed"}}`)
	self.must(http.StatusCreated, "POST", "/api/v1/namespaces/doomed/configmaps", configMap("doomed", "c", nil))
	self.must(http.StatusOK, "DELETE", "/api/v1/namespaces/doomed", nil)
	waitFor(t, "the namespace controller to finish the deletion", func() bool {
		return self.do("GET", "/api/v1/namespaces/doomed", nil).code == http.StatusNotFound
	})
	waitFor(t, "the lease to be renewed", func() bool {
		r := self.do("GET", lease, nil)
		return r.code == http.StatusOK && str(r.json(t)["spec"].(map[string]any)["renewTime"]) != renewed
	})
}
