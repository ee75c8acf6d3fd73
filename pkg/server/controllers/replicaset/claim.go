package replicaset

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

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
