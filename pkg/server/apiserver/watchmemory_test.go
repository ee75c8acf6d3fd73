package apiserver_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/protobuf"
)

// Sizes of the initial state the watch memory tests stream.
const (
	bigObjects   = 40
	bigValueSize = 100 << 10
)

// createBig fills namespace ns with bigObjects ConfigMaps of about
// bigValueSize bytes each.
func createBig(c *client, ns string) {
	c.t.Helper()
	c.createNamespace(ns)
	val := strings.Repeat("x", bigValueSize)
	for i := range bigObjects {
		c.must(http.StatusCreated, "POST", "/api/v1/namespaces/"+ns+"/configmaps", configMap(ns, fmt.Sprintf("cm-%03d", i), map[string]any{"v": val}))
	}
}

// countFrames reads up to want events of a watch stream and counts them:
// JSON events end in a newline, protobuf ones start with their length.
func countFrames(t *testing.T, r io.Reader, proto bool, want int) int {
	t.Helper()
	br := bufio.NewReader(r)
	n := 0
	for n < want {
		if !proto {
			if _, err := br.ReadSlice('\n'); err == bufio.ErrBufferFull {
				continue
			} else if err != nil {
				return n
			}
			n++
			continue
		}
		var size [4]byte
		if _, err := io.ReadFull(br, size[:]); err != nil {
			return n
		}
		if _, err := br.Discard(int(binary.BigEndian.Uint32(size[:]))); err != nil {
			t.Fatalf("truncated protobuf frame after %d: %v", n, err)
		}
		n++
	}
	return n
}

// TestWatchInitialStateMemory: a watch's initial state is written from the
// cache's shared bytes, not copied into a frame for each watcher, so the
// memory it allocates does not grow with the initial state's size. Before,
// every watcher allocated at least the whole initial state again (twice
// over in protobuf).
func TestWatchInitialStateMemory(t *testing.T) {
	srv := apiservertest.Start(t)
	// HTTP/1.1 keeps the client's own allocations (HTTP/2 buffers each
	// DATA frame) out of the figure.
	cfg := rest.CopyConfig(srv.Config)
	cfg.TLSClientConfig.NextProtos = []string{"http/1.1"}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := &client{t: t, base: srv.URL, http: hc, srv: srv}
	createBig(c, "big")
	const watchers = 10
	for _, tc := range []struct {
		name   string
		accept string
		proto  bool
	}{
		{"json", "application/json", false},
		{"protobuf", protobuf.ContentType, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			watchOnce := func() {
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				req, _ := http.NewRequestWithContext(ctx, "GET", c.base+"/api/v1/namespaces/big/configmaps?watch=1", nil)
				req.Header.Set("Accept", tc.accept)
				resp, err := hc.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				if tc.proto && resp.Header.Get("Content-Type") != protobuf.StreamContentType {
					t.Fatalf("Content-Type %q, want %q", resp.Header.Get("Content-Type"), protobuf.StreamContentType)
				}
				if n := countFrames(t, resp.Body, tc.proto, bigObjects); n != bigObjects {
					t.Fatalf("got %d events, want %d", n, bigObjects)
				}
			}
			// The first watch builds what the cache keeps for every
			// watcher (protobuf messages) and warms the connection.
			watchOnce()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for range watchers {
				watchOnce()
			}
			runtime.ReadMemStats(&after)
			streamed := uint64(watchers * bigObjects * bigValueSize)
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("%d watchers streamed %d MiB of initial state, allocating %d MiB", watchers, streamed>>20, alloc>>20)
			// Copying frames allocated at least what was streamed; what is
			// left is per request, and grows under the race detector.
			bound := streamed / 4
			if raceEnabled {
				bound = streamed / 2
			}
			if alloc > bound {
				t.Errorf("allocated %d MiB to stream %d MiB of initial state: want under %d MiB", alloc>>20, streamed>>20, bound>>20)
			}
		})
	}
}

// TestWatchInitialStateStreamedDecodes: the initial state written in
// pieces decodes, with client-go, as the objects stored, in JSON and in
// protobuf.
func TestWatchInitialStateStreamedDecodes(t *testing.T) {
	srv := apiservertest.Start(t)
	c := clientFor(t, srv)
	createBig(c, "big")
	for _, ct := range []string{"application/json", protobuf.ContentType} {
		t.Run(ct, func(t *testing.T) {
			cfg := rest.CopyConfig(srv.Config)
			cfg.ContentType = ct
			cs, err := corev1client.NewForConfig(cfg)
			if err != nil {
				t.Fatal(err)
			}
			w, err := cs.ConfigMaps("big").Watch(t.Context(), metav1.ListOptions{TimeoutSeconds: ptrTo(int64(1))})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			n := 0
			for ev := range w.ResultChan() {
				cm, ok := ev.Object.(*corev1.ConfigMap)
				if ev.Type != watch.Added || !ok {
					t.Fatalf("event %d: %s %T, want ADDED ConfigMap", n, ev.Type, ev.Object)
				}
				if want := fmt.Sprintf("cm-%03d", n); cm.Name != want || len(cm.Data["v"]) != bigValueSize || cm.ResourceVersion == "" {
					t.Fatalf("event %d: %s with %d bytes at %q, want %s with %d", n, cm.Name, len(cm.Data["v"]), cm.ResourceVersion, want, bigValueSize)
				}
				n++
			}
			if n != bigObjects {
				t.Errorf("got %d ADDED events, want %d", n, bigObjects)
			}
		})
	}
}

func ptrTo[T any](v T) *T { return &v }
