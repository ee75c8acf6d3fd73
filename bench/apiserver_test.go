package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	clientgocache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

// The API server benchmarks drive a server from outside with client-go,
// as ../shared/perf's harness does: durable creates, 16 informers
// syncing, LISTs of 10,000 objects and a watch fan-out. By default they
// start `setpoint server` on its embedded bolt store (fsync on) as a
// process of its own; with -apiserver-kubeconfig they measure whatever
// server it names (kube-apiserver + etcd, say), and -apiserver-pids lets
// them add that server's CPU time:
//
//	go test -run '^$' -bench 'Creates|Informers16|List10k|WatchFanout' -benchtime 1x
//	go test -run '^$' -bench 'Creates|Informers16|List10k|WatchFanout' -benchtime 1x \
//	    -apiserver-kubeconfig $K -apiserver-pids "$(cat $PIDFILE)"
var (
	kubeconfigFlag = flag.String("apiserver-kubeconfig", "", "measure the API server this kubeconfig names instead of starting setpoint server")
	serverPIDsFlag = flag.String("apiserver-pids", "", "with -apiserver-kubeconfig: the server's process ids (space separated), for its CPU time")
)

// apiServer is the server under test, started once per test binary.
type apiServer struct {
	cfg  *rest.Config
	pids []int
}

var (
	apiServerOnce sync.Once
	theAPIServer  apiServer
)

func benchAPIServer(b *testing.B) apiServer {
	b.Helper()
	apiServerOnce.Do(func() {
		if *kubeconfigFlag == "" {
			// The server outlives any one benchmark's b.TempDir.
			dir, err := os.MkdirTemp("", "setpoint-bench-")
			if err != nil {
				b.Fatal(err)
			}
			atExit = append(atExit, func() { _ = os.RemoveAll(dir) })
			cfg, _, pid := startServerWith(b, dir)
			theAPIServer = apiServer{cfg: cfg, pids: []int{pid}}
			return
		}
		cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfigFlag)
		if err != nil {
			b.Fatal(err)
		}
		s := apiServer{cfg: cfg}
		for _, f := range strings.Fields(*serverPIDsFlag) {
			pid, err := strconv.Atoi(f)
			if err != nil {
				b.Fatalf("-apiserver-pids: %v", err)
			}
			s.pids = append(s.pids, pid)
		}
		theAPIServer = s
	})
	if theAPIServer.cfg == nil {
		b.Fatal("no API server")
	}
	return theAPIServer
}

// cpu is the server's CPU time so far, or 0 when its processes are not
// known.
func (s apiServer) cpu() time.Duration {
	var d time.Duration
	for _, pid := range s.pids {
		d += childCPU(pid)
	}
	return d
}

// client is a config of the server's with a connection of its own and no
// client-side rate limit, asking for contentType.
func (s apiServer) client(contentType string) *rest.Config {
	c := rest.CopyConfig(s.cfg)
	c.QPS, c.Burst = -1, 0
	c.ContentType = contentType
	// A Dial of its own keeps client-go from sharing one cached
	// transport, and so one HTTP/2 connection, between clients.
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	c.Dial = d.DialContext
	return c
}

// BenchmarkCreates: durable ConfigMap creates (256 random bytes each) by C
// closed-loop clients, each on its own connection, into a new namespace,
// which is left in place: creates per second, latency percentiles, and
// the server's CPU time per create. Run with -benchtime 1x.
func BenchmarkCreates(b *testing.B) {
	for _, tc := range []struct{ clients, count int }{{1, 2000}, {64, 20000}} {
		b.Run(fmt.Sprintf("c%d", tc.clients), func(b *testing.B) {
			srv := benchAPIServer(b)
			for range b.N {
				runCreates(b, srv, tc.clients, tc.count)
			}
		})
	}
}

func runCreates(b *testing.B, srv apiServer, clients, count int) {
	ctx := context.Background()
	admin := kubernetes.NewForConfigOrDie(srv.client(""))
	ns := fmt.Sprintf("bench-creates-%d", time.Now().UnixNano())
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	payload := func() string {
		p := make([]byte, 128)
		_, _ = rand.Read(p)
		return hex.EncodeToString(p)
	}
	cs := make([]*kubernetes.Clientset, clients)
	for i := range cs {
		cs[i] = kubernetes.NewForConfigOrDie(srv.client(""))
		// Connect before the clock starts.
		if _, err := cs[i].Discovery().ServerVersion(); err != nil {
			b.Fatal(err)
		}
	}
	next := make(chan int, count)
	for i := range count {
		next <- i
	}
	close(next)
	latencies := make([][]time.Duration, clients)
	errs := make(chan error, clients)
	var wg sync.WaitGroup
	cpu0 := srv.cpu()
	b.ResetTimer()
	start := time.Now()
	for c := range clients {
		wg.Go(func() {
			for i := range next {
				cm := &corev1.ConfigMap{
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%06d", i), Labels: map[string]string{"app": "bench"}},
					Data:       map[string]string{"payload": payload()},
				}
				t := time.Now()
				if _, err := cs[c].CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
					errs <- err
					return
				}
				latencies[c] = append(latencies[c], time.Since(t))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	all := slices.Concat(latencies...)
	slices.Sort(all)
	b.ReportMetric(float64(count)/elapsed.Seconds(), "creates/s")
	b.ReportMetric(ms(percentile(all, 0.50)), "p50-ms")
	b.ReportMetric(ms(percentile(all, 0.99)), "p99-ms")
	if cpu := srv.cpu() - cpu0; cpu > 0 {
		b.ReportMetric(ms(cpu)/float64(count), "server-cpu-ms/create")
	}
	// The namespace stays, as the shared harness leaves its own: deleting
	// it would have a server with a namespace controller (Setpoint's)
	// deleting thousands of objects while the next benchmark runs.
}

// BenchmarkInformers16: 16 client-go ConfigMap informers, each with its
// own clientset, connection and factory, started together on 10,000
// ConfigMaps of 1 KiB, until all are synced. The cases cover what
// decides the server's work: JSON or protobuf; an initial LIST at
// resourceVersion=0 (whole, from the watch cache), a consistent LIST in
// pages of 500 (client-go's default page size), or no LIST at all but a
// WatchList stream (client-go's WatchListClient). Figures: time until
// all 16 are synced and the server's CPU time over it. Run with
// -benchtime 1x.
func BenchmarkInformers16(b *testing.B) {
	const n, informerCount = 10_000, 16
	for _, format := range []string{"json", "protobuf"} {
		for _, initial := range []string{"list-rv0", "list-paged", "watchlist"} {
			b.Run(format+"-"+initial, func(b *testing.B) {
				srv := benchAPIServer(b)
				seedInformerNamespace(b, srv, n)
				contentType := "application/json"
				if format == "protobuf" {
					contentType = "application/vnd.kubernetes.protobuf"
				}
				restore := setWatchListClient(initial == "watchlist")
				defer restore()
				for range b.N {
					runInformers(b, srv, contentType, initial == "list-paged", n, informerCount)
				}
			})
		}
	}
}

const informersNamespace = "bench-informers"

var seedOnce sync.Once

// seedInformerNamespace fills informersNamespace with n ConfigMaps of
// about 1 KiB, once per test binary (and not again when a server named
// by -apiserver-kubeconfig has them from an earlier run).
func seedInformerNamespace(b *testing.B, srv apiServer, n int) {
	seedOnce.Do(func() {
		ctx := context.Background()
		cs := kubernetes.NewForConfigOrDie(srv.client(""))
		_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: informersNamespace}}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			b.Fatal(err)
		}
		work := make(chan int)
		var wg sync.WaitGroup
		var failed sync.Once
		var seedErr error
		for range 32 {
			wg.Go(func() {
				for i := range work {
					cm := &corev1.ConfigMap{
						ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%06d", i), Labels: map[string]string{"app": "bench"}},
						Data:       map[string]string{"payload": fmt.Sprintf("%06d", i) + strings.Repeat("x", 1018)},
					}
					if _, err := cs.CoreV1().ConfigMaps(informersNamespace).Create(ctx, cm, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
						failed.Do(func() { seedErr = err })
					}
				}
			})
		}
		for i := range n {
			work <- i
		}
		close(work)
		wg.Wait()
		if seedErr != nil {
			b.Fatal(seedErr)
		}
	})
}

func runInformers(b *testing.B, srv apiServer, contentType string, paged bool, n, count int) {
	stop := make(chan struct{})
	defer close(stop)
	var opts []informers.SharedInformerOption
	opts = append(opts, informers.WithNamespace(informersNamespace))
	if paged {
		// The reflector asks for resourceVersion=0, which a server
		// answers whole from its cache; a consistent list is paged.
		opts = append(opts, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			if o.ResourceVersion == "0" {
				o.ResourceVersion = ""
			}
		}))
	}
	factories := make([]informers.SharedInformerFactory, count)
	synced := make([]clientgocache.InformerSynced, count)
	stores := make([]clientgocache.Store, count)
	for i := range factories {
		cs := kubernetes.NewForConfigOrDie(srv.client(contentType))
		if _, err := cs.Discovery().ServerVersion(); err != nil {
			b.Fatal(err)
		}
		factories[i] = informers.NewSharedInformerFactoryWithOptions(cs, 0, opts...)
		inf := factories[i].Core().V1().ConfigMaps().Informer()
		synced[i], stores[i] = inf.HasSynced, inf.GetStore()
	}
	cpu0 := srv.cpu()
	b.ResetTimer()
	start := time.Now()
	for _, f := range factories {
		f.Start(stop)
	}
	for _, s := range synced {
		for !s() {
			time.Sleep(2 * time.Millisecond)
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	cpu := srv.cpu() - cpu0
	for i, s := range stores {
		if got := len(s.ListKeys()); got < n {
			b.Fatalf("informer %d holds %d ConfigMaps, want %d", i, got, n)
		}
	}
	b.ReportMetric(elapsed.Seconds(), "sync-s")
	if cpu > 0 {
		b.ReportMetric(cpu.Seconds(), "server-cpu-s")
	}
}

// watchListGates are client-go's feature gates with WatchListClient set.
type watchListGates struct {
	clientfeatures.Gates
	on bool
}

func (g watchListGates) Enabled(f clientfeatures.Feature) bool {
	if f == clientfeatures.WatchListClient {
		return g.on
	}
	return g.Gates.Enabled(f)
}

// setWatchListClient turns client-go's WatchListClient on or off for the
// informers made until restore is called.
func setWatchListClient(on bool) (restore func()) {
	prev := clientfeatures.FeatureGates()
	clientfeatures.ReplaceFeatureGates(watchListGates{Gates: prev, on: on})
	return func() { clientfeatures.ReplaceFeatureGates(prev) }
}

func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(p*float64(len(sorted))))]
}
