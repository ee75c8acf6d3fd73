package daemonset

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Budget is how far a rolling update may go at once, out of Desired
// nodes that should run a pod.
type Budget struct {
	Desired, MaxSurge, MaxUnavailable int
}

// RollBudget scales ds's maxSurge and maxUnavailable to the nodes that
// should run its pod, percentages rounded up as kube does. A DaemonSet
// allowing neither (which validation refuses) may take one node down
// at a time. OnDelete allows nothing.
func RollBudget(ds *appsv1.DaemonSet, nodes []*corev1.Node) (Budget, error) {
	var b Budget
	for _, n := range nodes {
		if ShouldRun(n, ds).Run {
			b.Desired++
		}
	}
	var err error
	if b.MaxSurge, err = surgeCount(ds, b.Desired); err != nil {
		return Budget{}, fmt.Errorf("invalid value for MaxSurge: %w", err)
	}
	if b.MaxUnavailable, err = unavailableCount(ds, b.Desired); err != nil {
		return Budget{}, fmt.Errorf("invalid value for MaxUnavailable: %w", err)
	}
	if b.Desired > 0 && b.MaxSurge == 0 && b.MaxUnavailable == 0 {
		b.MaxUnavailable = 1
	}
	return b, nil
}

func rollingUpdate(ds *appsv1.DaemonSet) *appsv1.RollingUpdateDaemonSet {
	if ds.Spec.UpdateStrategy.Type != appsv1.RollingUpdateDaemonSetStrategyType {
		return nil
	}
	return ds.Spec.UpdateStrategy.RollingUpdate
}

func surgeCount(ds *appsv1.DaemonSet, desired int) (int, error) {
	r := rollingUpdate(ds)
	if r == nil || r.MaxSurge == nil {
		return 0, nil
	}
	return intstr.GetScaledValueFromIntOrPercent(r.MaxSurge, desired, true)
}

func unavailableCount(ds *appsv1.DaemonSet, desired int) (int, error) {
	r := rollingUpdate(ds)
	if r == nil {
		return 0, nil
	}
	return intstr.GetScaledValueFromIntOrPercent(r.MaxUnavailable, desired, true)
}

// allowsSurge reports whether ds may run two pods on a node during an
// update.
func allowsSurge(ds *appsv1.DaemonSet) bool {
	n, err := surgeCount(ds, 1)
	return err == nil && n > 0
}

// Roll is the next step of a rolling update, as kube takes it, over the
// nodes that have pods or should run one.
//
// Without surge it deletes old pods for the manage loop to replace:
// every old pod that is not available, and available ones while the
// unavailable count (nodes without exactly one pod, new pods not yet
// available, the old ones just chosen) stays under maxUnavailable.
//
// With surge it creates new pods beside old ones: at once beside an old
// pod that is not available, and beside available ones up to maxSurge
// new pods not yet available; it deletes an old pod once the new one
// beside it is available, an unavailable old pod on a node that should
// not run one, and available old pods on such nodes only while more
// pods are available than desired. An old pod to replace on a node that
// is gone stops the step (NodeGoneError).
func Roll(ds *appsv1.DaemonSet, nodes []*corev1.Node, pods PodsByNode, hash string, b Budget, now time.Time) (Change, error) {
	minReady := ds.Spec.MinReadySeconds
	pods = withDesired(ds, nodes, pods)
	if b.MaxSurge == 0 {
		unavailable := 0
		var replace, candidates []*corev1.Pod
		for _, node := range sortedNodes(pods) {
			newPod, oldPod, ok := splitByTemplate(ds, pods[node], hash)
			switch {
			case !ok, newPod == nil && oldPod == nil, newPod != nil && oldPod != nil:
				// The manage loop settles this node first.
				unavailable++
			case newPod != nil:
				if !available(newPod, minReady, now) {
					unavailable++
				}
			case !available(oldPod, minReady, now):
				replace = append(replace, oldPod)
				unavailable++
			case unavailable < b.MaxUnavailable:
				candidates = append(candidates, oldPod)
			}
		}
		room := min(max(b.MaxUnavailable-unavailable, 0), len(candidates))
		return Change{Delete: append(replace, candidates[:room]...)}, nil
	}

	byName := map[string]*corev1.Node{}
	for _, n := range nodes {
		byName[n.Name] = n
	}
	var c Change
	var misplaced, candidates []string
	var misplacedPods = map[string]*corev1.Pod{}
	surging, availableNow := 0, 0
	for _, node := range sortedNodes(pods) {
		newPod, oldPod, ok := splitByTemplate(ds, pods[node], hash)
		if !ok {
			surging++
			continue
		}
		if p := oldPod; p != nil || newPod != nil {
			if p == nil {
				p = newPod
			}
			if available(p, minReady, now) {
				availableNow++
			}
		}
		switch {
		case oldPod == nil:
		case newPod == nil:
			n := byName[node]
			if n == nil {
				// kube stops here too, until the pod garbage collector
				// removes the pods of the node that is gone.
				return Change{}, &NodeGoneError{Node: node}
			}
			run := ShouldRun(n, ds).Run
			switch {
			case !available(oldPod, minReady, now):
				if !run {
					c.Delete = append(c.Delete, oldPod)
					continue
				}
				c.Create = append(c.Create, node)
			case !run:
				misplaced = append(misplaced, node)
				misplacedPods[node] = oldPod
			case surging < b.MaxSurge:
				candidates = append(candidates, node)
			}
		case !available(newPod, minReady, now):
			surging++
		default:
			c.Delete = append(c.Delete, oldPod)
		}
	}
	if spare := availableNow - b.Desired; spare > 0 {
		for _, node := range misplaced[:min(spare, len(misplaced))] {
			c.Delete = append(c.Delete, misplacedPods[node])
		}
	}
	room := min(max(b.MaxSurge-surging, 0), len(candidates))
	c.Create = append(c.Create, candidates[:room]...)
	return c, nil
}

// NodeGoneError: surging, a node with an old pod to replace is not among
// the nodes.
type NodeGoneError struct{ Node string }

func (e *NodeGoneError) Error() string {
	return fmt.Sprintf("couldn't get node for nodeName %q: not found", e.Node)
}

// withDesired is pods with an empty entry for each node that should run
// a pod and has none: such a node counts as unavailable.
func withDesired(ds *appsv1.DaemonSet, nodes []*corev1.Node, pods PodsByNode) PodsByNode {
	out := make(PodsByNode, len(pods))
	for n, ps := range pods {
		out[n] = ps
	}
	for _, n := range nodes {
		if _, ok := out[n.Name]; !ok && ShouldRun(n, ds).Run {
			out[n.Name] = nil
		}
	}
	return out
}

// splitByTemplate finds a node's live new and old pod; ok is false when
// it has two of either, which the manage loop prunes first.
func splitByTemplate(ds *appsv1.DaemonSet, onNode []*corev1.Pod, hash string) (newPod, oldPod *corev1.Pod, ok bool) {
	for _, p := range onNode {
		if p.DeletionTimestamp != nil {
			continue
		}
		if Updated(p, ds, hash) {
			if newPod != nil {
				return nil, nil, false
			}
			newPod = p
		} else {
			if oldPod != nil {
				return nil, nil, false
			}
			oldPod = p
		}
	}
	return newPod, oldPod, true
}
