// Package podcondition reads Pods' status conditions for the built-in
// controllers that act on readiness (endpoints, disruption budgets).
package podcondition

import corev1 "k8s.io/api/core/v1"

// True reports whether pod's condition t is True.
func True(pod *corev1.Pod, t corev1.PodConditionType) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == t {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
