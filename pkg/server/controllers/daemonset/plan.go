package daemonset

import (
	"sort"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// burstReplicas bounds the pods one pass creates or deletes, as kube's
// DaemonSet controller does (250), so a cluster of many nodes is served
// over passes that each see the outcome of the last.
const burstReplicas = 250

// PodsByNode are a DaemonSet's pods grouped by the node they belong to
// (TargetNode).
type PodsByNode map[string][]*corev1.Pod

// GroupByNode groups owned pods by their node, leaving out pods that
// name none and finished pods being deleted, which need nothing more
// from the controller.
func GroupByNode(owned []*corev1.Pod) PodsByNode {
	out := PodsByNode{}
	for _, p := range owned {
		if terminal(p) && p.DeletionTimestamp != nil {
			continue
		}
		node, err := TargetNode(p)
		if err != nil {
			continue
		}
		out[node] = append(out[node], p)
	}
	return out
}

// Change is what a pass does to a DaemonSet's pods: create one on each
// of Create, delete Delete.
type Change struct {
	Create []string
	Delete []*corev1.Pod
}

// Plan is the change kube's manage loop makes; failed pods (to be
// deleted when their node's back-off allows) are returned apart, as
// Failed, and succeeded ones are in Delete and in Succeeded, for their
// events. Per node:
//   - should run and has no pod: create one;
//   - may keep its pod: delete failed and succeeded ones; without surge
//     keep only the oldest of several (scheduled first); with surge keep
//     at most the oldest new and oldest old pod, and the old one only
//     while it is ready and the new one not yet available;
//   - may not keep its pod: delete all.
//
// Pods never scheduled that name a node that is gone are deleted too:
// the pod garbage collector leaves unscheduled pods alone.
func Plan(ds *appsv1.DaemonSet, nodes []*corev1.Node, pods PodsByNode, hash string, now time.Time) (c Change, failed, succeeded []*corev1.Pod) {
	surge := allowsSurge(ds)
	exists := map[string]bool{}
	for _, node := range nodes {
		exists[node.Name] = true
		fit := ShouldRun(node, ds)
		onNode, has := pods[node.Name]
		switch {
		case fit.Run && !has:
			c.Create = append(c.Create, node.Name)
		case fit.Keep:
			var running []*corev1.Pod
			for _, p := range onNode {
				switch {
				case p.DeletionTimestamp != nil:
				case p.Status.Phase == corev1.PodFailed:
					failed = append(failed, p)
				case p.Status.Phase == corev1.PodSucceeded:
					succeeded = append(succeeded, p)
					c.Delete = append(c.Delete, p)
				default:
					running = append(running, p)
				}
			}
			if len(running) == 0 {
				// Surging, a node whose pods all failed needs a new one
				// now; without surge, the next pass after the deletes.
				if surge && fit.Run {
					c.Create = append(c.Create, node.Name)
				}
				continue
			}
			sortOldestFirst(running)
			if !surge {
				c.Delete = append(c.Delete, running[1:]...)
				continue
			}
			c.Delete = append(c.Delete, pruneSurge(ds, running, hash, now)...)
		case has:
			for _, p := range onNode {
				if p.DeletionTimestamp == nil {
					c.Delete = append(c.Delete, p)
				}
			}
		}
	}
	for _, name := range sortedNodes(pods) {
		if exists[name] {
			continue
		}
		for _, p := range pods[name] {
			if p.Spec.NodeName == "" {
				c.Delete = append(c.Delete, p)
			}
		}
	}
	return c, failed, succeeded
}

// pruneSurge picks, among a node's running pods oldest first, the ones
// to delete when surge is allowed: all but the oldest new and oldest old
// pod, and the old one too once it is not ready or the new one is
// available.
func pruneSurge(ds *appsv1.DaemonSet, running []*corev1.Pod, hash string, now time.Time) []*corev1.Pod {
	var out []*corev1.Pod
	var newest, oldest *corev1.Pod // the oldest new pod, the oldest old pod
	for _, p := range running {
		switch {
		case p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] == hash && newest == nil:
			newest = p
		case p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] != hash && oldest == nil:
			oldest = p
		default:
			out = append(out, p)
		}
	}
	if newest != nil && oldest != nil && (!ready(oldest) || available(newest, ds.Spec.MinReadySeconds, now)) {
		out = append(out, oldest)
	}
	return out
}

// sortOldestFirst orders a node's pods as kube keeps the one to stay
// first: scheduled before unscheduled, then oldest, then by name.
func sortOldestFirst(pods []*corev1.Pod) {
	sort.SliceStable(pods, func(i, j int) bool {
		a, b := pods[i], pods[j]
		if (a.Spec.NodeName == "") != (b.Spec.NodeName == "") {
			return a.Spec.NodeName != ""
		}
		if a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.Name < b.Name
		}
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	})
}

func sortedNodes(pods PodsByNode) []string {
	out := make([]string, 0, len(pods))
	for n := range pods {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func terminal(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// ready reports whether pod's Ready condition is True.
func ready(pod *corev1.Pod) bool {
	return readySince(pod) != nil
}

// available reports whether pod has been ready for minReadySeconds at
// now, as kube's IsPodAvailable judges it.
func available(pod *corev1.Pod, minReadySeconds int32, now time.Time) bool {
	since := readySince(pod)
	if since == nil {
		return false
	}
	if minReadySeconds == 0 {
		return true
	}
	return !since.IsZero() && since.Add(time.Duration(minReadySeconds)*time.Second).Before(now)
}

// readySince is when pod's Ready condition turned True; nil when it is
// not ready.
func readySince(pod *corev1.Pod) *time.Time {
	for i := range pod.Status.Conditions {
		c := &pod.Status.Conditions[i]
		if c.Type == corev1.PodReady {
			if c.Status != corev1.ConditionTrue {
				return nil
			}
			return &c.LastTransitionTime.Time
		}
	}
	return nil
}
