package statefulset

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Claimed is how a StatefulSet's selector, name and controller
// references divide the pods of its namespace.
type Claimed struct {
	// Owned are the pods the set controls that are still its members
	// and selected.
	Owned []*corev1.Pod
	// Adopt are orphan members it selects: they get its reference.
	Adopt []*corev1.Pod
	// Release are pods it controls that are no longer selected or no
	// longer named as its members: they lose it.
	Release []*corev1.Pod
}

// Claim divides pods as kube's ControllerRefManager does for a
// StatefulSet, whose members are the pods named <set>-<ordinal>: a pod
// another object controls is left alone; one set controls is kept
// while it is a selected member, released otherwise; an orphan that is
// a selected member, not being deleted, is adopted. A set being deleted
// adopts and releases nothing.
func Claim(set *appsv1.StatefulSet, sel labels.Selector, pods []*corev1.Pod) Claimed {
	var c Claimed
	deleting := set.DeletionTimestamp != nil
	for _, p := range pods {
		match := sel.Matches(labels.Set(p.Labels)) && isMember(set, p)
		if ref := metav1.GetControllerOfNoCopy(p); ref != nil {
			switch {
			case ref.UID != set.UID:
			case match:
				c.Owned = append(c.Owned, p)
			case !deleting:
				c.Release = append(c.Release, p)
			}
			continue
		}
		if deleting || !match || p.DeletionTimestamp != nil || p.Namespace != set.Namespace {
			continue
		}
		c.Adopt = append(c.Adopt, p)
	}
	return c
}
