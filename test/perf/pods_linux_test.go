package perf_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// The size of BenchmarkPods10k; smaller runs check it works, e.g.
// -perf.pods 500 -perf.nodes 10.
var (
	podsFlag    = flag.Int("perf.pods", 10000, "pods BenchmarkPods10k creates")
	nodesFlag   = flag.Int("perf.nodes", 100, "simulated nodes BenchmarkPods10k's server runs (--nodes)")
	clientsFlag = flag.Int("perf.clients", 64, "concurrent clients BenchmarkPods10k creates pods with")
	// A CPU profile of the server over the run, from its /debug/pprof.
	cpuProfileFlag = flag.String("perf.cpuprofile", "", "write the server's CPU profile over BenchmarkPods10k's run to this file")
	profileSecs    = flag.Int("perf.profileseconds", 30, "seconds of -perf.cpuprofile")
	heapProfile    = flag.String("perf.heapprofile", "", "write the server's heap profile, taken once every pod is Ready, to this file")
	// Another server instead of `setpoint server`: kube-apiserver, etcd,
	// kube-scheduler and kwok, say, started by test/perf/kube/cluster.sh.
	kubeconfigFlag = flag.String("perf.kubeconfig", "", "run BenchmarkPods10k against the cluster of this kubeconfig (its nodes simulated already) instead of starting setpoint server")
	pidsFlag       = flag.String("perf.pids", "", "with -perf.kubeconfig: the comma-separated PIDs of the cluster's processes, whose CPU and memory are measured")
)

const (
	podsNamespace = "pods10k"
	// readyTarget: every pod should be Running and Ready within this
	// many times the time it took to create them all.
	readyTarget = 3.0
)

// BenchmarkPods10k runs `setpoint server --nodes 100` as a process and
// creates 10,000 pods (the pod `kubectl run --image=nginx` makes) from 64
// concurrent clients, each a client-go clientset with its own connection,
// speaking protobuf; the built-in scheduler binds them and the simulated
// nodes run them. A watch on all pods, opened before the first create,
// notes when each pod is first Running with condition Ready True.
// Reported: create-s (first create sent to last answered), ready-s
// (first create sent to the last pod Ready), ready/create (the target is
// at most 3), server-cpu-s and server-cores (its CPU over ready-s),
// server-peak-rss-MB (VmHWM), and others_frac, the share of the
// machine's CPU that other processes used meanwhile (figures taken while
// it is high are not worth quoting). ns/op is ready-s. Run it once:
//
//	go test ./test/perf/ -run '^$' -bench BenchmarkPods10k -benchtime 1x -timeout 30m
//
// and smaller with -args -perf.pods 500 -perf.nodes 10.
func BenchmarkPods10k(b *testing.B) {
	requireBench(b)
	n, nodes, clients := *podsFlag, *nodesFlag, *clientsFlag
	var last podsRun
	eachServer(b, nodes, func(srv *serverProcess) { last = runPods(b, srv, n, nodes, clients) })
	b.ReportMetric(last.create.Seconds(), "create-s")
	b.ReportMetric(last.ready.Seconds(), "ready-s")
	ratio := last.ready.Seconds() / last.create.Seconds()
	b.ReportMetric(ratio, "ready/create")
	b.ReportMetric(last.cpu.server.Seconds(), "server-cpu-s")
	b.ReportMetric(last.cpu.server.Seconds()/last.cpu.wall.Seconds(), "server-cores")
	b.ReportMetric(last.peakRSS, "server-peak-rss-MB")
	b.ReportMetric(last.cpu.othersFrac, "others_frac")
	verdict := "met"
	if ratio > readyTarget {
		verdict = "missed"
	}
	b.Logf("%d pods, %d nodes, %d clients: created in %v, all Ready after %v (%.2fx, target %.0fx %s); server CPU %v, peak RSS %.0f MB; others_frac %.2f",
		n, nodes, clients, last.create.Round(time.Millisecond), last.ready.Round(time.Millisecond), ratio, readyTarget, verdict,
		last.cpu.server.Round(time.Millisecond), last.peakRSS, last.cpu.othersFrac)
}

// podsRun is what one run measured.
type podsRun struct {
	create, ready time.Duration
	cpu           cpuReport
	peakRSS       float64
}

func runPods(b *testing.B, srv *serverProcess, n, nodes, clients int) podsRun {
	b.StopTimer()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	admin := clientset(b, srv.config)
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: podsNamespace}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	waitNodesReady(b, ctx, admin, nodes)
	list, err := admin.CoreV1().Pods(podsNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		b.Fatal(err)
	}
	cs := make([]*kubernetes.Clientset, clients)
	for i := range cs {
		cs[i] = clientset(b, srv.config)
	}
	readyAll := make(chan time.Time, 1)
	watchErr := make(chan error, 1)
	var progress watchProgress
	go func() { watchErr <- watchReady(ctx, admin, list.ResourceVersion, n, readyAll, &progress) }()

	profiled := make(chan error, 1)
	if *cpuProfileFlag != "" {
		go func() { profiled <- serverProfile(srv.config, *cpuProfileFlag, *profileSecs) }()
	} else {
		profiled <- nil
	}
	b.StartTimer()
	meter := startCPUMeter(b, srv)
	start := time.Now()
	createPods(b, ctx, cs, n)
	created := time.Now()
	var ready time.Time
	select {
	case ready = <-readyAll:
	case err := <-watchErr:
		b.Fatalf("watching pods: %v", err)
	case <-ctx.Done():
		b.Fatal("pods not all Ready in 30 minutes")
	}
	b.StopTimer()
	r := podsRun{create: created.Sub(start), ready: ready.Sub(start), cpu: meter.stop(b), peakRSS: srv.peakRSS(b)}
	b.Logf("bound: %s; ready: %s", progress.bound.summary(start), progress.ready.summary(start))
	if err := <-profiled; err != nil {
		b.Errorf("server CPU profile: %v", err)
	}
	if *heapProfile != "" {
		if err := serverProfileAt(srv.config, "/debug/pprof/heap", *heapProfile); err != nil {
			b.Errorf("server heap profile: %v", err)
		}
	}
	b.StartTimer()
	return r
}

// serverProfile saves secs seconds of the server's CPU profile to file.
func serverProfile(cfg *rest.Config, file string, secs int) error {
	return serverProfileAt(cfg, "/debug/pprof/profile?seconds="+strconv.Itoa(secs), file)
}

// serverProfileAt saves what the server's path answers to file.
func serverProfileAt(cfg *rest.Config, path, file string) error {
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return err
	}
	resp, err := hc.Get(cfg.Host + path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s", resp.Status)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// clientset is a client of its own (its own connection): protobuf, as
// controllers and kubelets talk to kube-apiserver.
func clientset(b *testing.B, cfg *rest.Config) *kubernetes.Clientset {
	b.Helper()
	cfg = rest.CopyConfig(cfg)
	// client-go shares one transport, hence one HTTP/2 connection, among
	// equal configs; a Proxy function makes the config unique, so each
	// clientset is a separate client on the wire. It proxies nothing.
	cfg.Proxy = func(*http.Request) (*url.URL, error) { return nil, nil }
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	return cs
}

// waitNodesReady waits until the server registered its simulated nodes
// and each reports Ready.
func waitNodesReady(b *testing.B, ctx context.Context, cs kubernetes.Interface, want int) {
	b.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			b.Fatal(err)
		}
		ready := 0
		for _, n := range nodes.Items {
			for _, c := range n.Status.Conditions {
				if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
					ready++
				}
			}
		}
		if ready >= want {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d nodes Ready after 2 minutes", ready, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// createPods creates pod-00000 ... from len(cs) goroutines, each with its
// own clientset, taking the next number as it finishes one.
func createPods(b *testing.B, ctx context.Context, cs []*kubernetes.Clientset, n int) {
	b.Helper()
	var next atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	for _, c := range cs {
		wg.Go(func() {
			pods := c.CoreV1().Pods(podsNamespace)
			for {
				i := int(next.Add(1)) - 1
				if i >= n || failed.Load() != nil {
					return
				}
				name := fmt.Sprintf("pod-%05d", i)
				pod := &corev1.Pod{
					ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"run": name, "app": "pods10k"}},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx"}}},
				}
				if _, err := pods.Create(ctx, pod, metav1.CreateOptions{}); err != nil {
					failed.CompareAndSwap(nil, fmt.Errorf("create %s: %w", name, err))
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

// watchReady watches the namespace's pods from rv and sends the moment
// the n-th pod is first Running and Ready. When the server ends a watch
// it resumes from the last event seen.
func watchReady(ctx context.Context, cs kubernetes.Interface, rv string, n int, done chan<- time.Time, progress *watchProgress) error {
	ready := make(map[string]bool, n)
	bound := make(map[string]bool, n)
	for {
		w, err := cs.CoreV1().Pods(podsNamespace).Watch(ctx, metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true})
		if err != nil {
			return err
		}
		for ev := range w.ResultChan() {
			switch ev.Type {
			case watch.Error:
				w.Stop()
				return fmt.Errorf("watch error event: %v", ev.Object)
			case watch.Added, watch.Modified, watch.Bookmark:
			default:
				continue
			}
			p, ok := ev.Object.(*corev1.Pod)
			if !ok {
				continue
			}
			rv = p.ResourceVersion
			if ev.Type != watch.Bookmark && p.Spec.NodeName != "" && !bound[p.Name] {
				bound[p.Name] = true
				progress.bound.note(n, len(bound))
			}
			if ev.Type == watch.Bookmark || ready[p.Name] || p.Status.Phase != corev1.PodRunning || !podIsReady(p) {
				continue
			}
			ready[p.Name] = true
			progress.ready.note(n, len(ready))
			if len(ready) == n {
				done <- time.Now()
				w.Stop()
				return nil
			}
		}
		if ctx.Err() != nil {
			return errors.New("watch ended with the benchmark")
		}
	}
}

func podIsReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// watchProgress notes when a watch saw half, nine tenths and all of the
// pods bound to a node, and Ready: where the time between the last
// create and the last Ready goes.
type watchProgress struct {
	bound, ready milestones
}

// milestones are the moments a count reached 50%, 90% and 100% of n.
type milestones struct {
	mu sync.Mutex
	at [3]time.Time
}

func (m *milestones) note(n, count int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, frac := range []float64{0.5, 0.9, 1} {
		if m.at[i].IsZero() && float64(count) >= frac*float64(n) {
			m.at[i] = time.Now()
		}
	}
}

func (m *milestones) summary(start time.Time) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := ""
	for i, label := range []string{"50%", "90%", "100%"} {
		if i > 0 {
			out += ", "
		}
		d := time.Duration(0)
		if !m.at[i].IsZero() {
			d = m.at[i].Sub(start).Round(10 * time.Millisecond)
		}
		out += fmt.Sprintf("%s at %v", label, d)
	}
	return out
}

// eachServer calls run once per benchmark iteration with a server: a
// fresh `setpoint server --nodes nodes` each time, or the cluster
// -perf.kubeconfig and -perf.pids name, which serves one run (what it
// made stays).
func eachServer(b *testing.B, nodes int, run func(*serverProcess)) {
	b.Helper()
	if *kubeconfigFlag != "" {
		if *pidsFlag == "" {
			b.Fatal("-perf.kubeconfig needs -perf.pids")
		}
		srv := runningServer(b, *kubeconfigFlag, *pidsFlag)
		for b.Loop() {
			run(srv)
		}
		return
	}
	bin := buildSetpoint(b)
	for b.Loop() {
		b.StopTimer()
		srv := startServerProcess(b, bin, "--nodes", strconv.Itoa(nodes))
		b.StartTimer()
		run(srv)
	}
}
