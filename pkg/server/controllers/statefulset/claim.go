package statefulset

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// selects is what a StatefulSet claims, as kube's controller reference
// manager decides for one: the pods its selector matches that are
// named as its members, <set>-<ordinal>.
func selects(set *appsv1.StatefulSet, sel labels.Selector) func(*corev1.Pod) bool {
	return func(p *corev1.Pod) bool { return sel.Matches(labels.Set(p.Labels)) && isMember(set, p) }
}
