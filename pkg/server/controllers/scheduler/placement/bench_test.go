package placement

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// BenchmarkSchedule places thousands of pods over 100 nodes, each
// decision seeing the pods placed before it, as the controller's view
// does.
func BenchmarkSchedule(b *testing.B) {
	const nodes, pods = 100, 5000
	var ns []*corev1.Node
	for i := range nodes {
		ns = append(ns, mkNode(fmt.Sprintf("node-%03d", i), withAllocatable("cpu", "64"), withAllocatable("memory", "256Gi")))
	}
	queue := make([]*corev1.Pod, pods)
	for i := range queue {
		queue[i] = mkPod(fmt.Sprintf("p-%d", i), requests("cpu", "100m", "memory", "128Mi"), ownedBy(fmt.Sprintf("rs-%d", i%20)))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		snap := snapshot(ns)
		byName := map[string]*NodeInfo{}
		for _, ni := range snap.Nodes {
			byName[ni.Name()] = ni
		}
		for _, p := range queue {
			d, err := Schedule(p, snap)
			if err != nil {
				b.Fatal(err)
			}
			byName[d.Node].AddPod(NewPodInfo(p))
		}
	}
	b.ReportMetric(float64(b.N*pods)/b.Elapsed().Seconds(), "pods/s")
}
