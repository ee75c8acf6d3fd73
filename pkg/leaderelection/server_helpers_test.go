package leaderelection_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/leaderelection"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// waitTimeout bounds every wait for something that should happen; tests
// assert what happens, not how fast.
const waitTimeout = 20 * time.Second

// gate is a test-only transport that can cut one candidate off the
// network, as a paused VM or a partition would. A request sent while the
// gate is shut waits, ignoring its context, and goes out when the gate
// opens, so the server sees it late: exactly the write a deposed leader
// might still send.
type gate struct {
	next http.RoundTripper

	mu     sync.Mutex
	open   chan struct{} // closed while the gate is open
	putsOK []int         // status codes of PUTs that went out late
	dead   bool          // requests fail at once, as from a crashed process
}

var errDead = errors.New("test: this candidate's network is down")

// die makes every request fail from now on.
func (g *gate) die() {
	g.mu.Lock()
	g.dead = true
	g.mu.Unlock()
}

func newGate(next http.RoundTripper) *gate {
	g := &gate{next: next, open: make(chan struct{})}
	close(g.open)
	return g
}

func (g *gate) shut() {
	g.mu.Lock()
	g.open = make(chan struct{})
	g.mu.Unlock()
}

func (g *gate) reopen() {
	g.mu.Lock()
	close(g.open)
	g.mu.Unlock()
}

func (g *gate) RoundTrip(req *http.Request) (*http.Response, error) {
	g.mu.Lock()
	open, dead := g.open, g.dead
	g.mu.Unlock()
	if dead {
		return nil, errDead
	}
	late := false
	select {
	case <-open:
	default:
		<-open
		late = true
		req = req.WithContext(context.WithoutCancel(req.Context()))
	}
	resp, err := g.next.RoundTrip(req)
	if late && err == nil && req.Method == http.MethodPut {
		g.mu.Lock()
		g.putsOK = append(g.putsOK, resp.StatusCode)
		g.mu.Unlock()
	}
	return resp, err
}

func (g *gate) latePuts() []int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]int(nil), g.putsOK...)
}

// newClient is a Setpoint client for srv; wrap, if set, wraps its
// transport.
func newClient(t testing.TB, srv *apiservertest.Server, wrap func(http.RoundTripper) http.RoundTripper) *client.Client {
	t.Helper()
	opts := client.Options{Logger: (&logs{}).logger()}
	if wrap != nil {
		rt, err := rest.TransportFor(srv.Config)
		if err != nil {
			t.Fatal(err)
		}
		opts.HTTPClient = &http.Client{Transport: wrap(rt)}
	}
	c, err := client.New(srv.Config, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func createNamespace(t testing.TB, c *client.Client, name string) string {
	t.Helper()
	if err := c.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
		t.Fatal(err)
	}
	return name
}

func receive[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitTimeout):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// candidate is an elector running against the real server.
type candidate struct {
	id     string
	e      *leaderelection.Elector
	cancel context.CancelFunc
	done   <-chan error
}

func startCandidate(t testing.TB, cfg leaderelection.Config) *candidate {
	t.Helper()
	e, err := leaderelection.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &candidate{id: cfg.Identity, e: e, cancel: cancel, done: runElector(ctx, e)}
	t.Cleanup(c.stop)
	return c
}

// stop cancels the candidate and waits for Run to return; it may be
// called more than once.
func (c *candidate) stop() {
	c.cancel()
	for range c.done {
	}
}
