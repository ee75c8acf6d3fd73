package bench

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	clientgocache "k8s.io/client-go/tools/cache"

	"github.com/setpoint-dev/setpoint/pkg/cache"
	"github.com/setpoint-dev/setpoint/pkg/client"
)

// BenchmarkInformerSync compares an informer's initial sync of N
// ConfigMaps, Setpoint's cache.Informer against client-go's
// SharedInformer, on the same server: time to synced, and the heap the
// informer keeps once synced. The server runs as its own process
// (setpoint server --storage memory) so its memory is not counted.
// Run with -benchtime 1x: each op syncs once per implementation.
//
// The "managedFields" cases hold objects with a managedFields entry
// recording the writer, as kube-apiserver writes them (the bench writes
// the entry itself, so both servers would hold the same one). Setpoint's
// cache drops managedFields by default; client-go keeps them.
//
// The "compact" cases run Setpoint's informer with Compact on: objects
// kept encoded and decoded on each read.
//
// client-go's clientset asks for JSON unless told otherwise, and that is
// what the plain cases compare; the "client-go-protobuf" case sets its
// ContentType to protobuf, as kube-controller-manager does.
//
// Besides wall time to synced (which includes the server's work, on the
// same two cores), each case reports the CPU time the test process
// spent (user + system, GC included) until synced: the client's own cost.
func BenchmarkInformerSync(b *testing.B) {
	for _, tc := range []struct {
		n             int
		managedFields bool
		clientGoProto bool
		compact       bool
	}{
		{10_000, false, false, false}, {10_000, true, false, false}, {10_000, false, false, true},
		{100_000, false, false, false}, {100_000, true, false, false}, {100_000, false, true, false}, {100_000, false, false, true},
	} {
		name := fmt.Sprintf("n%d", tc.n)
		if tc.managedFields {
			name += "-managedFields"
		}
		if tc.clientGoProto {
			name += "-client-go-protobuf"
		}
		if tc.compact {
			name += "-compact"
		}
		b.Run(name, func(b *testing.B) {
			cfg := informerServer(b, tc.n, tc.managedFields)
			goCfg := rest.CopyConfig(cfg)
			if tc.clientGoProto {
				goCfg.ContentType = "application/vnd.kubernetes.protobuf"
			}
			var sums [2]syncCost
			for range b.N {
				// client-go first, then Setpoint, alternating per op.
				sums[0].add(measureSync(b, func(ctx context.Context) func() bool { return clientGoInformer(b, ctx, goCfg) }))
				sums[1].add(measureSync(b, func(ctx context.Context) func() bool { return setpointInformer(b, ctx, cfg, tc.compact) }))
			}
			nf := float64(b.N)
			b.ReportMetric(sums[0].heapMB/nf, "client-go-heap-MB")
			b.ReportMetric(sums[1].heapMB/nf, "setpoint-heap-MB")
			b.ReportMetric(sums[1].heapMB/sums[0].heapMB, "heap-ratio")
			b.ReportMetric(sums[0].syncMS/nf, "client-go-sync-ms")
			b.ReportMetric(sums[1].syncMS/nf, "setpoint-sync-ms")
			b.ReportMetric(sums[1].syncMS/sums[0].syncMS, "sync-ratio")
			b.ReportMetric(sums[0].cpuMS/nf, "client-go-cpu-ms")
			b.ReportMetric(sums[1].cpuMS/nf, "setpoint-cpu-ms")
			b.ReportMetric(sums[1].cpuMS/sums[0].cpuMS, "cpu-ratio")
		})
	}
}

// syncCost is what one informer's initial sync cost.
type syncCost struct {
	heapMB, syncMS, cpuMS float64
}

func (s *syncCost) add(o syncCost) {
	s.heapMB += o.heapMB
	s.syncMS += o.syncMS
	s.cpuMS += o.cpuMS
}

// measureSync starts an informer, waits until it has synced, and returns
// the heap it holds then (MB, after GC), the time it took and the
// process's CPU time meanwhile (ms).
func measureSync(b *testing.B, start func(ctx context.Context) func() bool) syncCost {
	b.Helper()
	ctx, cancel := context.WithCancel(b.Context())
	defer cancel()
	base := liveHeap()
	cpu0 := processCPU(b)
	t0 := time.Now()
	synced := start(ctx)
	for !synced() {
		if time.Since(t0) > 5*time.Minute {
			b.Fatal("informer did not sync within 5 minutes")
		}
		time.Sleep(time.Millisecond)
	}
	d := time.Since(t0)
	cpu := processCPU(b) - cpu0
	held := liveHeap()
	runtime.KeepAlive(synced)
	cancel()
	return syncCost{
		heapMB: float64(held-base) / (1 << 20),
		syncMS: float64(d) / float64(time.Millisecond),
		cpuMS:  float64(cpu) / float64(time.Millisecond),
	}
}

func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func clientGoInformer(b *testing.B, ctx context.Context, cfg *rest.Config) func() bool {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(benchNamespace))
	inf := f.Core().V1().ConfigMaps().Informer()
	// A handler, as a controller has; it does nothing.
	if _, err := inf.AddEventHandler(clientgocache.ResourceEventHandlerFuncs{}); err != nil {
		b.Fatal(err)
	}
	f.Start(ctx.Done())
	return func() bool { return inf.HasSynced() && len(inf.GetStore().ListKeys()) >= 0 }
}

func setpointInformer(b *testing.B, ctx context.Context, cfg *rest.Config, compact bool) func() bool {
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		b.Fatal(err)
	}
	lw, err := c.ListerWatcher(corev1.SchemeGroupVersion.WithKind("ConfigMap"), benchNamespace)
	if err != nil {
		b.Fatal(err)
	}
	inf := cache.NewInformer[*corev1.ConfigMap](lw, cache.InformerOptions[*corev1.ConfigMap]{Compact: compact})
	if _, err := inf.AddHandler(cache.HandlerFuncs[*corev1.ConfigMap]{}, cache.HandlerOptions{Name: "bench"}); err != nil {
		b.Fatal(err)
	}
	go func() { _ = inf.Run(ctx) }()
	return inf.HasSynced
}

const benchNamespace = "bench"

type serverID struct {
	n             int
	managedFields bool
}

var (
	serversMu sync.Mutex
	servers   = map[serverID]*rest.Config{}
)

// informerServer returns a server holding n ConfigMaps of about 1 KiB in
// the bench namespace, started once per n for the whole run.
func informerServer(b *testing.B, n int, managedFields bool) *rest.Config {
	b.Helper()
	serversMu.Lock()
	defer serversMu.Unlock()
	id := serverID{n, managedFields}
	if cfg, ok := servers[id]; ok {
		return cfg
	}
	dir := b.TempDir()
	cfg, _, _ := startServer(b, dir)
	cfg.QPS, cfg.Burst = -1, 0
	seedConfigMaps(b, cfg, n, managedFields)
	servers[id] = cfg
	return cfg
}

// managedFieldsEntry is what kube-apiserver records for a client that
// created such a ConfigMap with an update.
var managedFieldsEntry = metav1.ManagedFieldsEntry{
	Manager: "bench", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
	Time: &metav1.Time{Time: time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)}, FieldsType: "FieldsV1",
	FieldsV1: metav1.NewFieldsV1(`{"f:data":{".":{},"f:value":{}},"f:metadata":{"f:labels":{".":{},"f:app":{},"f:shard":{}}}}`),
}

func seedConfigMaps(b *testing.B, cfg *rest.Config, n int, managedFields bool) {
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: benchNamespace}}
	if err := c.Create(ctx, ns); err != nil && !client.IsAlreadyExists(err) {
		b.Fatal(err)
	}
	work := make(chan int)
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	for range 32 {
		wg.Go(func() {
			for i := range work {
				cm := &corev1.ConfigMap{
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%06d", i), Namespace: benchNamespace,
						Labels: map[string]string{"app": "bench", "shard": fmt.Sprint(i % 16)}},
					// A payload of its own per object: equal payloads
					// would flatter a cache that shares equal strings.
					Data: map[string]string{"value": fmt.Sprintf("%06d", i) + strings.Repeat("x", 894)},
				}
				if managedFields {
					cm.ManagedFields = []metav1.ManagedFieldsEntry{managedFieldsEntry}
				}
				if err := c.Create(ctx, cm); err != nil && !client.IsAlreadyExists(err) {
					select {
					case errs <- err:
					default:
					}
				}
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	select {
	case err := <-errs:
		b.Fatal(err)
	default:
	}
}

type syncWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.String()
}
