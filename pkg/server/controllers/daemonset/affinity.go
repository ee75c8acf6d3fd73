package daemonset

import (
	"errors"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodeAffinityFor is a copy of affinity whose required node affinity
// names node and nothing else (metadata.name In [node]), as kube's
// ReplaceDaemonSetPodNodeNameNodeAffinity makes it: the scheduler then
// binds the pod to node, after checking the node has room. The
// template's own required terms are dropped (the controller chose node
// by them); its preferred terms and pod (anti-)affinity stay.
func NodeAffinityFor(affinity *corev1.Affinity, node string) *corev1.Affinity {
	out := affinity.DeepCopy()
	if out == nil {
		out = &corev1.Affinity{}
	}
	if out.NodeAffinity == nil {
		out.NodeAffinity = &corev1.NodeAffinity{}
	}
	if out.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		out.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{}
	}
	out.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms = []corev1.NodeSelectorTerm{{
		MatchFields: []corev1.NodeSelectorRequirement{{Key: metav1.ObjectNameField, Operator: corev1.NodeSelectorOpIn, Values: []string{node}}},
	}}
	return out
}

// errNoTargetNode: a pod names no node, bound or by affinity.
var errNoTargetNode = errors.New("pod names no node")

// TargetNode is the node a daemon pod belongs to: the one it is bound to
// or, before the scheduler binds it, the one its required node affinity
// names by metadata.name (the first such single-valued In). A pod naming
// none, or several in one requirement, belongs nowhere.
func TargetNode(pod *corev1.Pod) (string, error) {
	if pod.Spec.NodeName != "" {
		return pod.Spec.NodeName, nil
	}
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return "", errNoTargetNode
	}
	for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, r := range term.MatchFields {
			if r.Key != metav1.ObjectNameField || r.Operator != corev1.NodeSelectorOpIn {
				continue
			}
			if len(r.Values) != 1 {
				return "", errNoTargetNode
			}
			return r.Values[0], nil
		}
	}
	return "", errNoTargetNode
}
