// Package toleration matches Pods' tolerations against Nodes' taints by
// kube's rules, for the built-in controllers that place pods (the
// scheduler) and evict them (taint eviction).
package toleration

import corev1 "k8s.io/api/core/v1"

// Tolerates reports whether t matches taint: an empty effect matches
// every effect, an empty key with Exists every key; Exists ignores the
// value, Equal (the default) compares it.
func Tolerates(t *corev1.Toleration, taint *corev1.Taint) bool {
	if t.Effect != "" && t.Effect != taint.Effect || t.Key != "" && t.Key != taint.Key {
		return false
	}
	switch t.Operator {
	case corev1.TolerationOpExists:
		return true
	case corev1.TolerationOpEqual, "":
		return t.Value == taint.Value
	}
	return false
}

// Any reports whether one of tols matches taint.
func Any(tols []corev1.Toleration, taint *corev1.Taint) bool {
	for i := range tols {
		if Tolerates(&tols[i], taint) {
			return true
		}
	}
	return false
}
