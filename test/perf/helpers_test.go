package perf_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// requireBench skips a benchmark unless the binary was asked to run
// benchmarks: these set up thousands of objects or build the binary, and
// have no place in a plain test run.
func requireBench(b *testing.B) {
	b.Helper()
	if f := flag.Lookup("test.bench"); f == nil || f.Value.String() == "" {
		b.Skip("perf benchmarks run only with -bench")
	}
	if testing.Short() {
		b.Skip("perf benchmarks do not run with -short")
	}
}

// startServer runs an in-process server on the memory store until the
// benchmark ends.
func startServer(b *testing.B) *apiservertest.Server {
	b.Helper()
	srv, stop, err := apiservertest.Run(context.Background(), apiservertest.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(stop)
	return srv
}

// api is a plain net/http client of the server.
type api struct {
	base string
	hc   *http.Client
}

// newAPI returns a client of the server with the config's CA and token.
// proto "HTTP1.1" forces HTTP/1.1 through ALPN, with a connection per
// concurrent request; otherwise client-go's default, HTTP/2, is used.
func newAPI(b *testing.B, cfg *rest.Config, proto string) *api {
	b.Helper()
	cfg = rest.CopyConfig(cfg)
	if proto == "HTTP1.1" {
		cfg.NextProtos = []string{"http/1.1"}
	}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		b.Fatal(err)
	}
	return &api{base: cfg.Host, hc: hc}
}

// do sends a request with a JSON body and returns the status and body.
func (a *api) do(ctx context.Context, method, path string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		js, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(js)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := a.hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp.StatusCode, out, err
}

// mustDo is do that fails the benchmark unless the status is want.
func (a *api) mustDo(b *testing.B, method, path string, body any, want int) []byte {
	b.Helper()
	code, out, err := a.do(context.Background(), method, path, body)
	if err != nil {
		b.Fatal(err)
	}
	if code != want {
		b.Fatalf("%s %s: %d, want %d: %s", method, path, code, want, out)
	}
	return out
}

func (a *api) createNamespace(b *testing.B, name string) {
	b.Helper()
	a.mustDo(b, http.MethodPost, "/api/v1/namespaces", map[string]any{
		"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": name},
	}, http.StatusCreated)
}

// configMap is a ConfigMap whose JSON is about size bytes once the server
// has added its metadata (about 250 bytes of it).
func configMap(ns, name string, size int, annotations map[string]string) map[string]any {
	meta := map[string]any{"name": name, "namespace": ns, "labels": map[string]any{"app": "perf"}}
	if annotations != nil {
		meta["annotations"] = annotations
	}
	pad := max(size-250-len(name)-len(ns), 1)
	return map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta,
		"data": map[string]any{"payload": strings.Repeat("x", pad)},
	}
}

// createConfigMaps creates n ConfigMaps named cm-00000... in ns with
// workers concurrent clients.
func (a *api) createConfigMaps(b *testing.B, ns string, n, size, workers int) {
	b.Helper()
	var next atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	path := "/api/v1/namespaces/" + ns + "/configmaps"
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n || failed.Load() != nil {
					return
				}
				code, out, err := a.do(context.Background(), http.MethodPost, path, configMap(ns, fmt.Sprintf("cm-%05d", i), size, nil))
				if err == nil && code != http.StatusCreated {
					err = fmt.Errorf("create %d: %d %s", i, code, out)
				}
				if err != nil {
					failed.CompareAndSwap(nil, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := failed.Load(); err != nil {
		b.Fatal(err)
	}
}

// heapObjects is the runtime/metrics sample of bytes in heap objects,
// live or not yet swept: what a request's allocations add until the next
// GC.
const heapObjects = "/memory/classes/heap/objects:bytes"

// peakHeap runs f while a goroutine samples the heap in a tight loop,
// after a GC sets the baseline. It returns the highest sample above the
// baseline, and the baseline (the live heap).
func peakHeap(f func()) (peakExtra, base uint64) {
	runtime.GC()
	runtime.GC()
	s := []metrics.Sample{{Name: heapObjects}}
	metrics.Read(s)
	base = s[0].Value.Uint64()
	var peak uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		s := []metrics.Sample{{Name: heapObjects}}
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-stop:
				return
			default:
			}
		}
	}()
	f()
	close(stop)
	<-done
	if peak < base {
		return 0, base
	}
	return peak - base, base
}

// percentile of sorted durations, q in [0,1].
func percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted)-1) + 0.5)
	return sorted[min(i, len(sorted)-1)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func sortDurations(d []time.Duration) { slices.Sort(d) }

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// errorsIsCanceled says whether a read failed because the benchmark ended
// its request.
func errorsIsCanceled(err error) bool {
	return errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "use of closed network connection")
}
