package deployment

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// OldPodsRunning reports whether a Recreate must still wait before
// scaling the new ReplicaSet up: an old ReplicaSet still reports pods,
// or a pod of one (pods: those d's selector matches, terminating ones
// too) has not finished.
func OldPodsRunning(newRS *appsv1.ReplicaSet, old []*appsv1.ReplicaSet, pods []*corev1.Pod) bool {
	if sum(old, actualReplicas) > 0 {
		return true
	}
	olds := map[types.UID]bool{}
	for _, rs := range old {
		olds[rs.UID] = true
	}
	if newRS != nil {
		delete(olds, newRS.UID)
	}
	for _, p := range pods {
		ref := metav1.GetControllerOfNoCopy(p)
		if ref == nil || !olds[ref.UID] {
			continue
		}
		if p.Status.Phase != corev1.PodFailed && p.Status.Phase != corev1.PodSucceeded {
			return true
		}
	}
	return false
}
