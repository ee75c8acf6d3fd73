package placement

import (
	corev1 "k8s.io/api/core/v1"
)

// hardAffinityWeight is what an existing pod's required affinity term
// that selects the incoming pod adds to its domain (kube's default
// hardPodAffinityWeight).
const hardAffinityWeight = 1

// weightedTerm is a preferred term with its weight, negative for
// anti-affinity.
type weightedTerm struct {
	term
	weight int64
}

func preferredTerms(pod *corev1.Pod) []weightedTerm {
	a := pod.Spec.Affinity
	if a == nil {
		return nil
	}
	var out []weightedTerm
	add := func(ws []corev1.WeightedPodAffinityTerm, sign int64) {
		for i := range ws {
			t := newTerms(pod.Namespace, []corev1.PodAffinityTerm{ws[i].PodAffinityTerm})
			out = append(out, weightedTerm{term: t[0], weight: sign * int64(ws[i].Weight)})
		}
	}
	if a.PodAffinity != nil {
		add(a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution, 1)
	}
	if a.PodAntiAffinity != nil {
		add(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution, -1)
	}
	return out
}

// hasPodAffinity reports whether a pod has any pod affinity or
// anti-affinity term, which the score must read.
func hasPodAffinity(pod *corev1.Pod) bool {
	a := pod.Spec.Affinity
	return a != nil && (a.PodAffinity != nil || a.PodAntiAffinity != nil)
}

// affinityDomains is InterPodAffinity's scoring state: what each
// topology domain is worth to the incoming pod, from its preferred terms
// over the pods there and from those pods' terms over it.
func affinityDomains(pod *corev1.Pod, snap *Snapshot) map[topologyPair]int64 {
	mine := preferredTerms(pod)
	scores := map[topologyPair]int64{}
	add := func(t *term, w int64, node *corev1.Node) {
		if v, ok := node.Labels[t.topologyKey]; ok {
			scores[topologyPair{t.topologyKey, v}] += w
		}
	}
	for _, ni := range snap.Nodes {
		if len(ni.Node.Labels) == 0 || (len(mine) == 0 && ni.affinityPods == 0) {
			continue
		}
		for _, pi := range ni.Pods {
			for i := range mine {
				if mine[i].matches(pi.Pod, snap.NamespaceLabels) {
					add(&mine[i].term, mine[i].weight, ni.Node)
				}
			}
			if !hasPodAffinity(pi.Pod) {
				continue
			}
			required, _ := requiredTerms(pi.Pod)
			for i := range required {
				if required[i].matches(pod, snap.NamespaceLabels) {
					add(&required[i], hardAffinityWeight, ni.Node)
				}
			}
			theirs := preferredTerms(pi.Pod)
			for i := range theirs {
				if theirs[i].matches(pod, snap.NamespaceLabels) {
					add(&theirs[i].term, theirs[i].weight, ni.Node)
				}
			}
		}
	}
	for k, v := range scores {
		if v == 0 {
			delete(scores, k)
		}
	}
	return scores
}

// affinityScore sums what the node's domains are worth.
func affinityScore(node *corev1.Node, domains map[topologyPair]int64) int64 {
	var s int64
	for p, v := range domains {
		if got, ok := node.Labels[p.key]; ok && got == p.value {
			s += v
		}
	}
	return s
}
