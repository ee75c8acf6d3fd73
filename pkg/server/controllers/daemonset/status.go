package daemonset

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// Status is ds's status given its nodes and pods: per node that should
// run a pod, whether it has one (current), whether the oldest is ready,
// available (ready for minReadySeconds) and of the current template
// (updated); nodes that should not run one but have one are
// misscheduled. observedGeneration moves only when the pass acted on
// this generation (observe), never back. recheck is when a ready pod
// becomes available, if one will.
func Status(ds *appsv1.DaemonSet, nodes []*corev1.Node, pods PodsByNode, hash string, observe bool, now time.Time) (st appsv1.DaemonSetStatus, recheck time.Duration) {
	st = *ds.Status.DeepCopy()
	var desired, current, misscheduled, readyN, availableN, updated int32
	for _, node := range nodes {
		onNode := pods[node.Name]
		if !ShouldRun(node, ds).Run {
			if len(onNode) > 0 {
				misscheduled++
			}
			continue
		}
		desired++
		if len(onNode) == 0 {
			continue
		}
		current++
		sorted := append([]*corev1.Pod(nil), onNode...)
		sortOldestFirst(sorted)
		p := sorted[0]
		if ready(p) {
			readyN++
			if available(p, ds.Spec.MinReadySeconds, now) {
				availableN++
			}
		}
		if Updated(p, ds, hash) {
			updated++
		}
	}
	st.DesiredNumberScheduled = desired
	st.CurrentNumberScheduled = current
	st.NumberMisscheduled = misscheduled
	st.NumberReady = readyN
	st.NumberAvailable = availableN
	st.UpdatedNumberScheduled = updated
	st.NumberUnavailable = desired - availableN
	if observe && st.ObservedGeneration < ds.Generation {
		st.ObservedGeneration = ds.Generation
	}
	if ds.Spec.MinReadySeconds > 0 && readyN != availableN {
		recheck = time.Duration(ds.Spec.MinReadySeconds) * time.Second
	}
	return st, recheck
}
