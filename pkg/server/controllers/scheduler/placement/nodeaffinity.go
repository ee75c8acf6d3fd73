package placement

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
)

// matchesNodeSelector reports whether a node passes the pod's
// spec.nodeSelector and its required node affinity.
func matchesNodeSelector(pod *corev1.Pod, node *corev1.Node) bool {
	for k, v := range pod.Spec.NodeSelector {
		if got, ok := node.Labels[k]; !ok || got != v {
			return false
		}
	}
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return true
	}
	return matchesTerms(a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms, node)
}

// matchesTerms: the terms are ORed; none matches an empty list.
func matchesTerms(terms []corev1.NodeSelectorTerm, node *corev1.Node) bool {
	for i := range terms {
		if matchesTerm(&terms[i], node) {
			return true
		}
	}
	return false
}

// matchesTerm: a term's requirements are ANDed, and a term without any
// matches no node.
func matchesTerm(t *corev1.NodeSelectorTerm, node *corev1.Node) bool {
	if len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0 {
		return false
	}
	for i := range t.MatchExpressions {
		r := &t.MatchExpressions[i]
		v, ok := node.Labels[r.Key]
		if !matchesRequirement(r, v, ok) {
			return false
		}
	}
	for i := range t.MatchFields {
		r := &t.MatchFields[i]
		// metadata.name is the one field kube supports here.
		if r.Key != "metadata.name" {
			return false
		}
		if !matchesRequirement(r, node.Name, true) {
			return false
		}
	}
	return true
}

// matchesRequirement checks one requirement against a value, present or
// not. Gt and Lt compare integers and need the label present.
func matchesRequirement(r *corev1.NodeSelectorRequirement, v string, present bool) bool {
	switch r.Operator {
	case corev1.NodeSelectorOpIn:
		return present && contains(r.Values, v)
	case corev1.NodeSelectorOpNotIn:
		return !present || !contains(r.Values, v)
	case corev1.NodeSelectorOpExists:
		return present
	case corev1.NodeSelectorOpDoesNotExist:
		return !present
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if !present || len(r.Values) != 1 {
			return false
		}
		have, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return false
		}
		want, err := strconv.ParseInt(r.Values[0], 10, 64)
		if err != nil {
			return false
		}
		if r.Operator == corev1.NodeSelectorOpGt {
			return have > want
		}
		return have < want
	}
	return false
}

func contains(vs []string, v string) bool {
	for _, s := range vs {
		if s == v {
			return true
		}
	}
	return false
}

// preferredScore sums the weights of the pod's preferred node affinity
// terms the node matches.
func preferredScore(pod *corev1.Pod, node *corev1.Node) int64 {
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil {
		return 0
	}
	var s int64
	for i := range a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
		p := &a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution[i]
		if p.Weight != 0 && matchesTerm(&p.Preference, node) {
			s += int64(p.Weight)
		}
	}
	return s
}

// namedNodes is the set of nodes the pod's required node affinity names
// by metadata.name, when every term names some (kube's NodeAffinity
// PreFilter): within a term the names are intersected, across terms
// united. restricted is false when some term names none; an empty set
// that is restricted is a conflict.
func namedNodes(pod *corev1.Pod) (names map[string]bool, restricted bool) {
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return nil, false
	}
	terms := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	if len(terms) == 0 {
		return nil, false
	}
	names = map[string]bool{}
	for i := range terms {
		var term map[string]bool
		for _, r := range terms[i].MatchFields {
			if r.Key != "metadata.name" || r.Operator != corev1.NodeSelectorOpIn {
				continue
			}
			s := map[string]bool{}
			for _, v := range r.Values {
				if term == nil || term[v] {
					s[v] = true
				}
			}
			term = s
		}
		if term == nil {
			return nil, false
		}
		for n := range term {
			names[n] = true
		}
	}
	return names, true
}
