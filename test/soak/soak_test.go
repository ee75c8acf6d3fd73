package soak_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/internal/processtest"
)

// The server runs with short timeouts so that the test waits seconds,
// not kube's minutes; the mechanisms are the same.
const (
	idleTimeout    = 3 * time.Second
	requestTimeout = 4 * time.Second
)

// Bounds on what the server may hold. Idle it holds about 40 MiB and at
// its peak, rewriting objects of 1.3 MiB, about 420 MiB; before the
// limits it reached 765 MiB with the watches alone.
const (
	peakRSSLimit = 640 << 20
	// quota is the store's; history is kept up to an eighth of it.
	quota   = 256 << 20
	fdSlack = 30
	goSlack = 60
)

func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("the soak test runs the server for about a minute")
	}
	bin := processtest.Build(t, "./cmd/setpoint")[0]
	dataDir := t.TempDir()
	var srv *processtest.Process
	for attempt := 1; ; attempt++ {
		srv = processtest.Start(t, "setpoint server", bin, "server",
			"--data-dir", dataDir, "--listen", processtest.FreeAddr(t),
			"--idle-timeout", idleTimeout.String(), "--request-timeout", requestTimeout.String(),
			"--quota-backend-bytes", fmt.Sprint(quota))
		err := srv.WaitOutput(t, "setpoint API server ready")
		if err == nil {
			break
		}
		if attempt == 5 || !strings.Contains(srv.Output(), "address already in use") {
			t.Fatal(err)
		}
	}
	pid := srv.Pid()
	c := newClient(t, filepath.Join(dataDir, "kubeconfig"))
	lease := waitLease(t, c)
	installCRD(t, c)
	c.hc.CloseIdleConnections()
	time.Sleep(time.Second)
	base := measure(t, c, pid)
	t.Logf("at rest: %v", base)

	t.Run("patch amplification", func(t *testing.T) { patchAmplification(t, c) })
	t.Run("idle connections", func(t *testing.T) { idleConnections(t, c, pid, base) })
	t.Run("slow bodies", func(t *testing.T) { slowBodies(t, c, pid, base) })
	t.Run("large watches", func(t *testing.T) { largeWatches(t, c, pid, base) })
	t.Run("large writes", func(t *testing.T) { largeWrites(t, c, dataDir) })

	c.hc.CloseIdleConnections()
	end := settle(t, c, pid, base, fdSlack, goSlack, 20*time.Second)
	t.Logf("after: %v", end)
	if end.peakRSS > peakRSSLimit {
		t.Errorf("peak RSS %d MiB, want at most %d MiB", end.peakRSS>>20, peakRSSLimit>>20)
	}
	keptLease(t, c, lease)
	srv.Stop(t)
}

// soakCRD is a custom resource that keeps whatever it is given, the
// shape that lets one patch grow an object without a schema to stop it.
const soakCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"blobs.soak.setpoint.dev"},
"spec":{"group":"soak.setpoint.dev","scope":"Namespaced",
"names":{"plural":"blobs","singular":"blob","kind":"Blob"},
"versions":[{"name":"v1","served":true,"storage":true,
"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}}]}}`

const blobs = "/apis/soak.setpoint.dev/v1/namespaces/default/blobs"

func installCRD(t *testing.T, c *client) {
	t.Helper()
	c.ok(t, http.MethodPost, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", []byte(soakCRD))
	deadline := time.Now().Add(processtest.Timeout)
	for {
		if code, _ := c.do(t, http.MethodGet, blobs, "", nil); code == http.StatusOK {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the Blob resource was not served in time")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// blob is a Blob whose spec.data is n bytes.
func blob(name string, n int) []byte {
	return fmt.Appendf(nil, `{"apiVersion":"soak.setpoint.dev/v1","kind":"Blob","metadata":{"name":%q},"spec":{"data":%q}}`, name, strings.Repeat("x", n))
}

// patchAmplification sends small patches that would build huge objects.
func patchAmplification(t *testing.T, c *client) {
	c.ok(t, http.MethodPost, blobs, "application/json", blob("amp", 1024))
	// Each copy doubles spec: 20 of them would make 1 GiB from 1 KiB.
	var ops []string
	for i := range 20 {
		ops = append(ops, fmt.Sprintf(`{"op":"copy","from":"/spec","path":"/spec/c%d"}`, i))
	}
	doubling := []byte("[" + strings.Join(ops, ",") + "]")
	for range 20 {
		c.tooLarge(t, http.MethodPatch, blobs+"/amp", "application/json-patch+json", doubling)
	}
	// Many cheap operations are refused by count.
	ops = ops[:0]
	for range 10001 {
		ops = append(ops, `{"op":"test","path":"/spec/data","value":"x"}`)
	}
	c.tooLarge(t, http.MethodPatch, blobs+"/amp", "application/json-patch+json", []byte("["+strings.Join(ops, ",")+"]"))
	// A merge patch just under the body limit makes an object over the
	// object limit.
	big := fmt.Appendf(nil, `{"spec":{"more":%q}}`, strings.Repeat("y", 2<<20))
	c.tooLarge(t, http.MethodPatch, blobs+"/amp", "application/merge-patch+json", big)

	got := c.ok(t, http.MethodGet, blobs+"/amp", "", nil)
	if len(got) > 8<<10 {
		t.Errorf("the object grew to %d bytes; every growing patch should have been refused", len(got))
	}
}

// idleConnections opens connections that make one request (or none) and
// then sit idle; the server must let them go after its idle timeout.
func idleConnections(t *testing.T, c *client, pid int, base usage) {
	const n = 300
	conns := make(chan interface{ Close() error }, n)
	background(n, func(i int) {
		conn := c.dial(t)
		conns <- conn
		switch i % 3 {
		case 0: // authenticated keep-alive
			_, _ = conn.Write([]byte(c.rawRequest(http.MethodGet, "/version", true, 0)))
		case 1: // unauthenticated keep-alive
			_, _ = conn.Write([]byte(c.rawRequest(http.MethodGet, "/api", false, 0)))
		} // case 2: the handshake only
	})()
	close(conns)
	held := measure(t, c, pid)
	t.Logf("with %d idle connections: %v", n, held)
	if held.fds < base.fds+n/2 {
		t.Errorf("the server holds %d descriptors with %d connections open; the test did not load it", held.fds, n)
	}
	settle(t, c, pid, base, fdSlack, goSlack, idleTimeout+15*time.Second)
	for conn := range conns {
		conn.Close()
	}
}

// slowBodies trickles request bodies a byte at a time; the server must
// give up on each within its request timeout.
func slowBodies(t *testing.T, c *client, pid int, base usage) {
	const n = 40
	closed := make(chan bool, n)
	wait := background(n, func(i int) {
		conn := c.dial(t)
		defer conn.Close()
		head := c.rawRequest(http.MethodPost, "/api/v1/namespaces/default/configmaps", i%2 == 0, 4096)
		if _, err := conn.Write([]byte(head + "{")); err != nil {
			closed <- true
			return
		}
		stop := time.Now().Add(requestTimeout + 15*time.Second)
		for time.Now().Before(stop) {
			if closedWithin(conn, time.Second) {
				closed <- true
				return
			}
			if _, err := conn.Write([]byte(" ")); err != nil {
				closed <- true
				return
			}
		}
		closed <- false
	})
	wait()
	close(closed)
	held := 0
	for ok := range closed {
		if !ok {
			held++
		}
	}
	if held > 0 {
		t.Errorf("%d of %d trickling requests were still held %v after the request timeout", held, n, 15*time.Second)
	}
	settle(t, c, pid, base, fdSlack, goSlack, 15*time.Second)
}

// largeWatches opens hundreds of watches on a namespace of large objects
// and never reads them, while the built-in controllers must keep working.
func largeWatches(t *testing.T, c *client, pid int, base usage) {
	const (
		objects  = 40
		size     = 900 << 10
		watchers = 300
	)
	ns := "soak-watch"
	c.ok(t, http.MethodPost, "/api/v1/namespaces", "application/json", fmt.Appendf(nil, `{"metadata":{"name":%q}}`, ns))
	for i := range objects {
		cm := fmt.Appendf(nil, `{"metadata":{"name":"big-%d"},"data":{"v":%q}}`, i, strings.Repeat("z", size))
		c.ok(t, http.MethodPost, "/api/v1/namespaces/"+ns+"/configmaps", "application/json", cm)
	}
	conns := make(chan interface{ Close() error }, watchers)
	background(watchers, func(i int) {
		conn := c.dial(t)
		conns <- conn
		_, _ = conn.Write([]byte(c.rawRequest(http.MethodGet, "/api/v1/namespaces/"+ns+"/configmaps?watch=1", true, 0)))
	})()
	close(conns)
	time.Sleep(5 * time.Second)
	held := measure(t, c, pid)
	t.Logf("with %d unread watches on %d MiB: %v", watchers, objects*size>>20, held)

	// The controllers still act: a namespace deleted now is emptied and
	// removed by the namespace controller.
	c.ok(t, http.MethodDelete, "/api/v1/namespaces/"+ns, "", nil)
	waitGone(t, c, "/api/v1/namespaces/"+ns, 60*time.Second)

	for conn := range conns {
		conn.Close()
	}
	if u := measure(t, c, pid); u.peakRSS > peakRSSLimit {
		t.Errorf("peak RSS %d MiB with %d watches, want at most %d MiB", u.peakRSS>>20, watchers, peakRSSLimit>>20)
	}
	settle(t, c, pid, base, fdSlack, goSlack, 20*time.Second)
}

// largeWrites rewrites an object near the size limit again and again;
// the store's history must stay bounded, and larger ones are refused.
func largeWrites(t *testing.T, c *client, dataDir string) {
	c.tooLarge(t, http.MethodPost, blobs, "application/json", blob("huge", 3<<20))
	const size = 1300 << 10
	c.ok(t, http.MethodPost, blobs, "application/json", blob("large", size))
	for i := range 80 {
		patch := fmt.Appendf(nil, `{"spec":{"data":%q}}`, strings.Repeat(string(rune('a'+i%26)), size))
		c.ok(t, http.MethodPatch, blobs+"/large", "application/merge-patch+json", patch)
	}
	fi, err := os.Stat(filepath.Join(dataDir, "setpoint.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("database after 80 writes of %d KiB: %d MiB", size>>10, fi.Size()>>20)
	// 104 MiB were written; history past quota/8 is compacted away and
	// its pages reused.
	if max := int64(quota / 2); fi.Size() > max {
		t.Errorf("database is %d MiB after 80 writes of %d KiB, want at most %d MiB", fi.Size()>>20, size>>10, max>>20)
	}
}

func waitGone(t *testing.T, c *client, path string, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		code, _ := c.do(t, http.MethodGet, path, "", nil)
		if code == http.StatusNotFound {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still there after %v", path, limit)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// leaseState is what the test checks of the controllers' lease.
type leaseState struct {
	holder      string
	transitions int32
}

const leasePath = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/setpoint-controllers"

func readLease(t *testing.T, c *client) (leaseState, time.Time, bool) {
	t.Helper()
	code, b := c.do(t, http.MethodGet, leasePath, "", nil)
	if code != http.StatusOK {
		return leaseState{}, time.Time{}, false
	}
	var l struct {
		Spec struct {
			Holder      string    `json:"holderIdentity"`
			Renew       time.Time `json:"renewTime"`
			Transitions int32     `json:"leaseTransitions"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(b, &l); err != nil {
		t.Fatal(err)
	}
	return leaseState{l.Spec.Holder, l.Spec.Transitions}, l.Spec.Renew, l.Spec.Holder != ""
}

func waitLease(t *testing.T, c *client) leaseState {
	t.Helper()
	deadline := time.Now().Add(processtest.Timeout)
	for {
		if l, _, ok := readLease(t, c); ok {
			return l
		}
		if time.Now().After(deadline) {
			t.Fatal("the built-in controllers took no lease")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// keptLease checks the controllers held their lease throughout: the same
// holder, no transition, renewed recently.
func keptLease(t *testing.T, c *client, before leaseState) {
	t.Helper()
	after, renewed, ok := readLease(t, c)
	if !ok || after != before {
		t.Errorf("lease %+v after the soak, want %+v throughout", after, before)
	}
	if age := time.Since(renewed); age > 15*time.Second {
		t.Errorf("lease last renewed %v ago", age)
	}
}
