package placement

import (
	corev1 "k8s.io/api/core/v1"
)

// preemption runs kube's DefaultPreemption as a dry run for the message
// it adds to a FitError: on every node that failed for a reason eviction
// could cure (code Unschedulable), it removes the pods of lower priority
// and filters again. It returns the message and whether some node would
// fit once its victims were gone (then kube would preempt; this
// scheduler does not evict yet, and leaves the message out as kube does
// when preemption succeeds).
func (c *cycle) preemption(snap *Snapshot, statuses map[string]*Status) (msg string, candidate bool) {
	if p := c.pod.Spec.PreemptionPolicy; p != nil && *p == corev1.PreemptNever {
		return "preemption: " + msgPreemptNever, false
	}
	dry := map[string]*Status{}
	for _, ni := range snap.Nodes {
		st := statuses[ni.Name()]
		if st == nil || st.Code != Unschedulable {
			continue
		}
		prio := c.info.Priority
		lower := func(pi *PodInfo) bool { return pi.Priority < prio }
		victims := 0
		for _, pi := range ni.Pods {
			if lower(pi) {
				victims++
			}
		}
		if victims == 0 {
			dry[ni.Name()] = fail(UnschedulableAndUnresolvable, reasonNoVictims)
			continue
		}
		if st := c.filter(ni.without(lower)); st != nil {
			dry[ni.Name()] = st
			continue
		}
		return "", true
	}
	return "preemption: " + histogram(len(snap.Nodes), dry, reasonPreemptionNotHelps), false
}
