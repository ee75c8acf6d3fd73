package podgc

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Reason says why a pod is collected; it names the pod's kind of
// garbage in logs, as kube's metrics label it.
type Reason string

// The kinds of garbage, in the order a look collects them.
const (
	Terminated              Reason = "terminated"
	TerminatingOutOfService Reason = "out-of-service"
	Orphaned                Reason = "orphaned"
	TerminatingUnscheduled  Reason = "unscheduled"
)

// Deletion is one pod to force delete.
type Deletion struct {
	Pod    *corev1.Pod
	Reason Reason
	// Condition, when not nil, is set on the pod as it is marked
	// Failed.
	Condition *corev1.PodCondition
}

// evictedReason is the status reason the kubelet gives a pod it evicted.
const evictedReason = "Evicted"

// Plan is what one look at pods and nodes collects, orphans aside
// (those need the server's word first: see Quarantine and Orphans).
// threshold <= 0 keeps every terminated pod. A pod is collected once,
// for the first reason that applies.
func Plan(pods []*corev1.Pod, nodes []*corev1.Node, threshold int) []Deletion {
	var out []Deletion
	seen := map[types.UID]bool{}
	add := func(p *corev1.Pod, r Reason) {
		if !seen[p.UID] {
			seen[p.UID] = true
			out = append(out, Deletion{Pod: p, Reason: r})
		}
	}
	if threshold > 0 {
		var done []*corev1.Pod
		for _, p := range pods {
			if terminated(p) {
				done = append(done, p)
			}
		}
		if excess := len(done) - threshold; excess > 0 {
			slices.SortFunc(done, collectFirst)
			for _, p := range done[:excess] {
				add(p, Terminated)
			}
		}
	}
	byName := make(map[string]*corev1.Node, len(nodes))
	for _, n := range nodes {
		byName[n.Name] = n
	}
	for _, p := range pods {
		if n := byName[p.Spec.NodeName]; p.DeletionTimestamp != nil && n != nil && outOfService(n) {
			add(p, TerminatingOutOfService)
		}
	}
	for _, p := range pods {
		if p.DeletionTimestamp != nil && p.Spec.NodeName == "" {
			add(p, TerminatingUnscheduled)
		}
	}
	return out
}

// terminated is kube's test: a phase other than Pending, Running and
// Unknown.
func terminated(p *corev1.Pod) bool {
	switch p.Status.Phase {
	case corev1.PodPending, corev1.PodRunning, corev1.PodUnknown:
		return false
	}
	return true
}

// collectFirst orders terminated pods for collection: evicted ones
// first, as nothing recreates them from that state, then by age, then
// by name.
func collectFirst(a, b *corev1.Pod) int {
	ae := a.Status.Phase == corev1.PodFailed && a.Status.Reason == evictedReason
	be := b.Status.Phase == corev1.PodFailed && b.Status.Reason == evictedReason
	switch {
	case ae && !be:
		return -1
	case be && !ae:
		return 1
	}
	if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

// outOfService reports a node an operator declared gone for good: not
// Ready and tainted node.kubernetes.io/out-of-service (any effect).
func outOfService(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
			return false
		}
	}
	return slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == corev1.TaintNodeOutOfService })
}

// Orphans are the deletions of pods bound to the nodes in gone, each
// with the DisruptionTarget condition kube sets on them.
func Orphans(pods []*corev1.Pod, gone map[string]bool) []Deletion {
	var out []Deletion
	for _, p := range pods {
		if p.Spec.NodeName == "" || !gone[p.Spec.NodeName] {
			continue
		}
		out = append(out, Deletion{Pod: p, Reason: Orphaned, Condition: &corev1.PodCondition{
			Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
			Reason: "DeletionByPodGC", Message: "PodGC: node no longer exists",
		}})
	}
	return out
}
