package perf_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// The size of BenchmarkDeployments; smaller runs check it works, e.g.
// -perf.deployments 5 -perf.replicas 10 -perf.nodes 5.
var (
	deploymentsFlag = flag.Int("perf.deployments", 100, "Deployments BenchmarkDeployments creates")
	replicasFlag    = flag.Int("perf.replicas", 100, "replicas of each of BenchmarkDeployments' Deployments")
)

const deploymentsNamespace = "deployments"

// BenchmarkDeployments runs `setpoint server --nodes 100` as a process
// (or drives the cluster -perf.kubeconfig names, as BenchmarkPods10k
// does) and creates 100 Deployments of 100 replicas each from 16
// clients: available-s is the time until every one is Available with
// all its replicas updated and ready. It then changes every Deployment's
// image: rollout-s is the time until every rollout completes (all
// replicas updated and available, no old pod left). Also reported:
// server-cpu-s and server-peak-rss-MB over both phases, and others_frac;
// -perf.heapprofile takes the server's heap profile at the end.
// Run it once:
//
//	go test ./test/perf/ -run '^$' -bench BenchmarkDeployments -benchtime 1x -timeout 30m
func BenchmarkDeployments(b *testing.B) {
	requireBench(b)
	n, replicas, nodes := *deploymentsFlag, *replicasFlag, *nodesFlag
	var last deploymentsRun
	eachServer(b, nodes, func(srv *serverProcess) { last = runDeployments(b, srv, n, replicas, nodes) })
	b.ReportMetric(last.available.Seconds(), "available-s")
	b.ReportMetric(last.rollout.Seconds(), "rollout-s")
	b.ReportMetric(last.cpu.server.Seconds(), "server-cpu-s")
	b.ReportMetric(last.peakRSS, "server-peak-rss-MB")
	b.ReportMetric(last.cpu.othersFrac, "others_frac")
	b.Logf("%d Deployments x %d replicas, %d nodes: all Available after %v, image rolled out in %v; server CPU %v, peak RSS %.0f MB; others_frac %.2f",
		n, replicas, nodes, last.available.Round(time.Millisecond), last.rollout.Round(time.Millisecond),
		last.cpu.server.Round(time.Millisecond), last.peakRSS, last.cpu.othersFrac)
}

type deploymentsRun struct {
	available, rollout time.Duration
	cpu                cpuReport
	peakRSS            float64
}

func runDeployments(b *testing.B, srv *serverProcess, n, replicas, nodes int) deploymentsRun {
	b.StopTimer()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	admin := clientset(b, srv.config)
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: deploymentsNamespace}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	waitNodesReady(b, ctx, admin, nodes)
	cs := make([]*kubernetes.Clientset, 16)
	for i := range cs {
		cs[i] = clientset(b, srv.config)
	}
	b.StartTimer()
	meter := startCPUMeter(b, srv)

	start := time.Now()
	done := watchDeployments(ctx, admin, n, "nginx:1.26")
	forEachDeployment(b, ctx, cs, n, func(c *kubernetes.Clientset, name string) error {
		r := int32(replicas)
		d := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: appsv1.DeploymentSpec{
				Replicas: &r,
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx:1.26"}}},
				},
			},
		}
		_, err := c.AppsV1().Deployments(deploymentsNamespace).Create(ctx, d, metav1.CreateOptions{})
		return err
	})
	available := waitDone(b, ctx, done, "Available")

	start2 := time.Now()
	done = watchDeployments(ctx, admin, n, "nginx:1.27")
	forEachDeployment(b, ctx, cs, n, func(c *kubernetes.Clientset, name string) error {
		patch := []byte(`{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.27"}]}}}}`)
		_, err := c.AppsV1().Deployments(deploymentsNamespace).Patch(ctx, name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
		return err
	})
	rolled := waitDone(b, ctx, done, "rolled out")
	b.StopTimer()
	r := deploymentsRun{available: available.Sub(start), rollout: rolled.Sub(start2), cpu: meter.stop(b), peakRSS: srv.peakRSS(b)}
	if *heapProfile != "" {
		if err := serverProfileAt(srv.config, "/debug/pprof/heap", *heapProfile); err != nil {
			b.Errorf("server heap profile: %v", err)
		}
	}
	b.StartTimer()
	return r
}

// forEachDeployment calls fn for deploy-000 ... from len(cs) goroutines.
func forEachDeployment(b *testing.B, ctx context.Context, cs []*kubernetes.Clientset, n int, fn func(*kubernetes.Clientset, string) error) {
	b.Helper()
	var next atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	for _, c := range cs {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n || failed.Load() != nil || ctx.Err() != nil {
					return
				}
				name := fmt.Sprintf("deploy-%03d", i)
				if err := fn(c, name); err != nil {
					failed.CompareAndSwap(nil, fmt.Errorf("%s: %w", name, err))
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

// watchDeployments sends the moment all n Deployments have completed a
// rollout of image: their template has it, the controller has observed
// that generation, every replica is updated and available, and no old
// replica is left.
func watchDeployments(ctx context.Context, cs kubernetes.Interface, n int, image string) <-chan any {
	out := make(chan any, 1)
	go func() {
		complete := map[string]bool{}
		rv := ""
		for ctx.Err() == nil {
			w, err := cs.AppsV1().Deployments(deploymentsNamespace).Watch(ctx, metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true})
			if err != nil {
				out <- err
				return
			}
			for ev := range w.ResultChan() {
				if ev.Type == watch.Error {
					w.Stop()
					out <- fmt.Errorf("watch error event: %v", ev.Object)
					return
				}
				d, ok := ev.Object.(*appsv1.Deployment)
				if !ok {
					continue
				}
				rv = d.ResourceVersion
				if ev.Type == watch.Bookmark || ev.Type == watch.Deleted {
					continue
				}
				complete[d.Name] = rolledOut(d, image)
				if countTrue(complete) == n {
					w.Stop()
					out <- time.Now()
					return
				}
			}
		}
		out <- errors.New("watch ended with the benchmark")
	}()
	return out
}

func rolledOut(d *appsv1.Deployment, image string) bool {
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	st := d.Status
	return len(d.Spec.Template.Spec.Containers) > 0 && d.Spec.Template.Spec.Containers[0].Image == image &&
		st.ObservedGeneration >= d.Generation && st.UpdatedReplicas == want && st.AvailableReplicas == want && st.Replicas == want
}

func countTrue(m map[string]bool) int {
	n := 0
	for _, v := range m {
		if v {
			n++
		}
	}
	return n
}

func waitDone(b *testing.B, ctx context.Context, done <-chan any, what string) time.Time {
	b.Helper()
	select {
	case v := <-done:
		if err, ok := v.(error); ok {
			b.Fatalf("watching deployments: %v", err)
		}
		return v.(time.Time)
	case <-ctx.Done():
		b.Fatalf("deployments not all %s in 30 minutes", what)
	}
	return time.Time{}
}
