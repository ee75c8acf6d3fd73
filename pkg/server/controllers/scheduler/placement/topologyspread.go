package placement

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// The reasons of kube's PodTopologySpread filter.
const (
	ReasonTopologySpread        = "node(s) didn't match pod topology spread constraints"
	ReasonTopologySpreadNoLabel = ReasonTopologySpread + " (missing required label)"
)

// spreadConstraint is a hard (DoNotSchedule) topology spread constraint
// with its selector parsed and kube's defaults applied.
type spreadConstraint struct {
	maxSkew     int
	topologyKey string
	selector    labels.Selector
	minDomains  int
	// honorAffinity and honorTaints say which nodes count as domains:
	// by default those the pod's node affinity admits, taints ignored.
	honorAffinity, honorTaints bool
	// counts is the number of matching pods per domain; a domain
	// present with 0 still counts for the minimum.
	counts map[string]int
	// selfMatch is 1 when the pod itself matches the selector.
	selfMatch int
}

// spreadState is what PodTopologySpread computes once per pod.
type spreadState struct{ constraints []*spreadConstraint }

// newSpreadState reads the pod's DoNotSchedule constraints (kube's
// cluster defaults are ScheduleAnyway only, so a pod without its own has
// none) and counts the matching pods per domain over the nodes each
// constraint covers.
func newSpreadState(pod *corev1.Pod, snap *Snapshot) *spreadState {
	var cs []*spreadConstraint
	for _, c := range pod.Spec.TopologySpreadConstraints {
		if c.WhenUnsatisfiable != corev1.DoNotSchedule {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(c.LabelSelector)
		if err != nil {
			sel = labels.Nothing()
		}
		// matchLabelKeys narrow the selector to the pod's own values.
		if len(c.MatchLabelKeys) > 0 {
			if reqs, ok := sel.Requirements(); ok {
				set := labels.Set{}
				for _, k := range c.MatchLabelKeys {
					if v, ok := pod.Labels[k]; ok {
						set[k] = v
					}
				}
				if len(set) > 0 {
					merged := labels.SelectorFromSet(set)
					for _, r := range reqs {
						merged = merged.Add(r)
					}
					sel = merged
				}
			}
		}
		sc := &spreadConstraint{
			maxSkew: int(c.MaxSkew), topologyKey: c.TopologyKey, selector: sel, minDomains: 1,
			honorAffinity: true, counts: map[string]int{},
		}
		if c.MinDomains != nil {
			sc.minDomains = int(*c.MinDomains)
		}
		if c.NodeAffinityPolicy != nil {
			sc.honorAffinity = *c.NodeAffinityPolicy == corev1.NodeInclusionPolicyHonor
		}
		if c.NodeTaintsPolicy != nil {
			sc.honorTaints = *c.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor
		}
		if sel.Matches(labels.Set(pod.Labels)) {
			sc.selfMatch = 1
		}
		cs = append(cs, sc)
	}
	if len(cs) == 0 {
		return nil
	}
	for _, ni := range snap.Nodes {
		node := ni.Node
		if !hasAllKeys(node.Labels, cs) {
			continue
		}
		for _, c := range cs {
			if c.honorAffinity && !matchesNodeSelector(pod, node) {
				continue
			}
			if c.honorTaints {
				if _, ok := untoleratedTaint(node.Spec.Taints, pod.Spec.Tolerations); ok {
					continue
				}
			}
			c.counts[node.Labels[c.topologyKey]] += countMatching(ni.Pods, c.selector, pod.Namespace)
		}
	}
	return &spreadState{constraints: cs}
}

func hasAllKeys(l map[string]string, cs []*spreadConstraint) bool {
	for _, c := range cs {
		if _, ok := l[c.topologyKey]; !ok {
			return false
		}
	}
	return true
}

// countMatching counts the pods of the namespace the selector matches,
// leaving out pods being deleted, as kube does.
func countMatching(pods []*PodInfo, sel labels.Selector, ns string) int {
	if sel.Empty() {
		return 0
	}
	n := 0
	for _, pi := range pods {
		if pi.Pod.DeletionTimestamp == nil && pi.Pod.Namespace == ns && sel.Matches(labels.Set(pi.Pod.Labels)) {
			n++
		}
	}
	return n
}

// filter is PodTopologySpread's verdict on one node: placing the pod
// there must keep every constraint's skew (the node's domain count, plus
// the pod, less the smallest domain's) within maxSkew.
func (s *spreadState) filter(node *corev1.Node) *Status {
	if s == nil {
		return nil
	}
	for _, c := range s.constraints {
		v, ok := node.Labels[c.topologyKey]
		if !ok {
			return fail(UnschedulableAndUnresolvable, ReasonTopologySpreadNoLabel)
		}
		minimum := 0
		if len(c.counts) >= c.minDomains {
			first := true
			for _, n := range c.counts {
				if first || n < minimum {
					minimum, first = n, false
				}
			}
		}
		if c.counts[v]+c.selfMatch-minimum > c.maxSkew {
			return fail(Unschedulable, ReasonTopologySpread)
		}
	}
	return nil
}
