package placement

import corev1 "k8s.io/api/core/v1"

// FitsNodeSelector reports whether node passes pod's spec.nodeSelector
// and its required node affinity, as the scheduler judges them: the
// DaemonSet controller asks it which nodes its pods belong on.
func FitsNodeSelector(pod *corev1.Pod, node *corev1.Node) bool {
	return matchesNodeSelector(pod, node)
}
