package placement

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
)

// Decision is where a pod goes.
type Decision struct {
	// Node is the chosen node's name.
	Node string
	// Feasible is how many nodes passed the filters.
	Feasible int
}

// Schedule picks a node for pod among snap's nodes. It returns ErrNoNodes
// for an empty cluster and a *FitError when no node passes the filters.
// Of the nodes that pass, the highest score wins, and of equal scores the
// name that sorts first.
func Schedule(pod *corev1.Pod, snap *Snapshot) (Decision, error) {
	if len(snap.Nodes) == 0 {
		return Decision{}, ErrNoNodes
	}
	c := newCycle(pod, snap)
	named, restricted := namedNodes(pod)
	if restricted && len(named) == 0 {
		fe := &FitError{NumAllNodes: len(snap.Nodes), PreFilterMsg: reasonNodeAffinityConflict}
		fe.PostFilterMsg, _ = c.preemption(snap, nil)
		return Decision{}, fe
	}
	feasible := make([]*NodeInfo, 0, len(snap.Nodes))
	var statuses map[string]*Status
	for _, ni := range snap.Nodes {
		if restricted && !named[ni.Name()] {
			continue
		}
		if st := c.filter(ni); st != nil {
			if statuses == nil {
				statuses = map[string]*Status{}
			}
			statuses[ni.Name()] = st
			continue
		}
		feasible = append(feasible, ni)
	}
	if len(feasible) == 0 {
		fe := &FitError{NumAllNodes: len(snap.Nodes), Statuses: statuses}
		if restricted {
			fe.Absent = reasonNotNamed
		}
		fe.PostFilterMsg, _ = c.preemption(snap, statuses)
		return Decision{}, fe
	}
	if len(feasible) == 1 {
		return Decision{Node: feasible[0].Name(), Feasible: 1}, nil
	}
	scores := c.scores(feasible, snap)
	best := 0
	for i := 1; i < len(feasible); i++ {
		if scores[i] > scores[best] || (scores[i] == scores[best] && feasible[i].Name() < feasible[best].Name()) {
			best = i
		}
	}
	return Decision{Node: feasible[best].Name(), Feasible: len(feasible)}, nil
}

// sortedNames lists a resource map's names in order, so that messages
// do not depend on map order.
func sortedNames(m map[corev1.ResourceName]int64) []corev1.ResourceName {
	if len(m) == 0 {
		return nil
	}
	out := make([]corev1.ResourceName, 0, len(m))
	for n := range m {
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
