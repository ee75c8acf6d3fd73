package placement

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// term is a pod affinity term with its selectors parsed.
type term struct {
	topologyKey string
	selector    labels.Selector
	namespaces  map[string]bool
	nsSelector  labels.Selector
}

// newTerms parses terms of a pod in namespace ns. A term naming no
// namespaces and no namespace selector covers the pod's own namespace.
// Terms that do not parse match nothing (the API refuses them anyway).
func newTerms(ns string, ts []corev1.PodAffinityTerm) []term {
	out := make([]term, 0, len(ts))
	for i := range ts {
		t := &ts[i]
		sel, err := metav1.LabelSelectorAsSelector(t.LabelSelector)
		if err != nil {
			sel = labels.Nothing()
		}
		nsSel, err := metav1.LabelSelectorAsSelector(t.NamespaceSelector)
		if err != nil {
			nsSel = labels.Nothing()
		}
		names := map[string]bool{}
		for _, n := range t.Namespaces {
			names[n] = true
		}
		if len(t.Namespaces) == 0 && t.NamespaceSelector == nil {
			names[ns] = true
		}
		out = append(out, term{topologyKey: t.TopologyKey, selector: sel, namespaces: names, nsSelector: nsSel})
	}
	return out
}

// matches reports whether the term selects pod.
func (t *term) matches(pod *corev1.Pod, nsLabels func(string) map[string]string) bool {
	// An empty namespace selector ({}) selects every namespace; a
	// missing one (labels.Nothing) none beyond the names.
	if !t.namespaces[pod.Namespace] && !t.nsSelector.Empty() {
		if nsLabels == nil || !t.nsSelector.Matches(labels.Set(nsLabels(pod.Namespace))) {
			return false
		}
	}
	return t.selector.Matches(labels.Set(pod.Labels))
}

func requiredTerms(pod *corev1.Pod) (affinity, anti []term) {
	a := pod.Spec.Affinity
	if a == nil {
		return nil, nil
	}
	if a.PodAffinity != nil {
		affinity = newTerms(pod.Namespace, a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
	}
	if a.PodAntiAffinity != nil {
		anti = newTerms(pod.Namespace, a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
	}
	return affinity, anti
}

// topologyPair is a topology domain: a node label and its value.
type topologyPair struct{ key, value string }

// podAffinityState is what InterPodAffinity learns once per pod from
// every node, so that each node's filter is a few map lookups.
type podAffinityState struct {
	affinity, anti []term
	// affinityCounts counts, per domain of each affinity term, the pods
	// that match all the affinity terms.
	affinityCounts map[topologyPair]int
	// antiCounts counts, per domain, pods the incoming pod's
	// anti-affinity terms select.
	antiCounts map[topologyPair]int
	// existingCounts counts, per domain, pods whose own anti-affinity
	// selects the incoming pod.
	existingCounts map[topologyPair]int
	// selfMatch: the pod matches all its own affinity terms, so it may
	// start a group when no pod matches them yet.
	selfMatch bool
}

func newPodAffinityState(pod *corev1.Pod, snap *Snapshot) *podAffinityState {
	s := &podAffinityState{}
	s.affinity, s.anti = requiredTerms(pod)
	anyExisting := false
	for _, ni := range snap.Nodes {
		if ni.antiAffinityPods > 0 {
			anyExisting = true
			break
		}
	}
	if len(s.affinity) == 0 && len(s.anti) == 0 && !anyExisting {
		return nil
	}
	s.affinityCounts, s.antiCounts, s.existingCounts = map[topologyPair]int{}, map[topologyPair]int{}, map[topologyPair]int{}
	s.selfMatch = len(s.affinity) > 0 && matchesAll(s.affinity, pod, snap.NamespaceLabels)
	for _, ni := range snap.Nodes {
		nl := ni.Node.Labels
		if ni.antiAffinityPods > 0 {
			for _, pi := range ni.Pods {
				if !pi.hasRequiredAntiAffinity() {
					continue
				}
				_, theirs := requiredTerms(pi.Pod)
				for i := range theirs {
					t := &theirs[i]
					if v, ok := nl[t.topologyKey]; ok && t.matches(pod, snap.NamespaceLabels) {
						s.existingCounts[topologyPair{t.topologyKey, v}]++
					}
				}
			}
		}
		if len(s.affinity) == 0 && len(s.anti) == 0 {
			continue
		}
		for _, pi := range ni.Pods {
			if len(s.affinity) > 0 && matchesAll(s.affinity, pi.Pod, snap.NamespaceLabels) {
				for i := range s.affinity {
					if v, ok := nl[s.affinity[i].topologyKey]; ok {
						s.affinityCounts[topologyPair{s.affinity[i].topologyKey, v}]++
					}
				}
			}
			for i := range s.anti {
				t := &s.anti[i]
				if v, ok := nl[t.topologyKey]; ok && t.matches(pi.Pod, snap.NamespaceLabels) {
					s.antiCounts[topologyPair{t.topologyKey, v}]++
				}
			}
		}
	}
	return s
}

func matchesAll(ts []term, pod *corev1.Pod, nsLabels func(string) map[string]string) bool {
	for i := range ts {
		if !ts[i].matches(pod, nsLabels) {
			return false
		}
	}
	return true
}

// filter is InterPodAffinity's verdict on one node.
func (s *podAffinityState) filter(node *corev1.Node) *Status {
	if s == nil {
		return nil
	}
	if !s.satisfiesAffinity(node) {
		return fail(UnschedulableAndUnresolvable, ReasonPodAffinity)
	}
	for i := range s.anti {
		t := &s.anti[i]
		if v, ok := node.Labels[t.topologyKey]; ok && s.antiCounts[topologyPair{t.topologyKey, v}] > 0 {
			return fail(Unschedulable, ReasonPodAntiAffinity)
		}
	}
	if len(s.existingCounts) > 0 {
		for k, v := range node.Labels {
			if s.existingCounts[topologyPair{k, v}] > 0 {
				return fail(Unschedulable, ReasonExistingAntiAffinty)
			}
		}
	}
	return nil
}

// satisfiesAffinity: every affinity term needs a matching pod in the
// node's domain; when no pod anywhere matches, a pod matching its own
// terms may go to any node that has the topology labels.
func (s *podAffinityState) satisfiesAffinity(node *corev1.Node) bool {
	if len(s.affinity) == 0 {
		return true
	}
	all := true
	for i := range s.affinity {
		t := &s.affinity[i]
		v, ok := node.Labels[t.topologyKey]
		if !ok {
			return false
		}
		if s.affinityCounts[topologyPair{t.topologyKey, v}] <= 0 {
			all = false
		}
	}
	if all {
		return true
	}
	return len(s.affinityCounts) == 0 && s.selfMatch
}
