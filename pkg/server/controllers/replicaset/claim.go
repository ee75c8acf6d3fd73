package replicaset

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Claims is how a ReplicaSet's selector and controller references divide
// the active pods of its namespace.
type Claims struct {
	// Owned are the pods the ReplicaSet controls and still selects, and
	// the orphans it adopts (also in Adopt).
	Owned []*corev1.Pod
	// Adopt are orphans it selects: they get its controller reference.
	Adopt []*corev1.Pod
	// Release are pods it controls but no longer selects: they lose it.
	Release []*corev1.Pod
}

// Claim divides pods as kube's ControllerRefManager does: a pod
// controlled by another object is left alone; one controlled by rs is
// kept while sel matches it and released when it stops matching; an
// orphan sel matches is adopted. A ReplicaSet being deleted adopts and
// releases nothing, and a pod being deleted is never adopted.
func Claim(rs *appsv1.ReplicaSet, sel labels.Selector, pods []*corev1.Pod) Claims {
	var c Claims
	deleting := rs.DeletionTimestamp != nil
	for _, p := range pods {
		matches := sel.Matches(labels.Set(p.Labels))
		if ref := metav1.GetControllerOfNoCopy(p); ref != nil {
			switch {
			case ref.UID != rs.UID:
			case matches:
				c.Owned = append(c.Owned, p)
			case !deleting:
				c.Release = append(c.Release, p)
			}
			continue
		}
		if deleting || !matches || p.DeletionTimestamp != nil || p.Namespace != rs.Namespace {
			continue
		}
		c.Adopt = append(c.Adopt, p)
		c.Owned = append(c.Owned, p)
	}
	return c
}

// Active reports whether pod counts toward a controller's replicas: it
// has not finished and is not being deleted.
func Active(pod *corev1.Pod) bool {
	return pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed && pod.DeletionTimestamp == nil
}

// controllerRef is the reference rs's pods carry.
func controllerRef(rs *appsv1.ReplicaSet) metav1.OwnerReference {
	t := true
	return metav1.OwnerReference{
		APIVersion: appsv1.SchemeGroupVersion.String(), Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID,
		Controller: &t, BlockOwnerDeletion: &t,
	}
}
