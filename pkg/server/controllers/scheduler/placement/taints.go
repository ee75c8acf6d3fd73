package placement

import (
	corev1 "k8s.io/api/core/v1"
)

// tolerates reports whether a toleration matches a taint, by kube's
// rules: an empty effect matches every effect, an empty key with Exists
// matches every key, Exists ignores the value, Equal (the default)
// compares it.
func tolerates(t *corev1.Toleration, taint *corev1.Taint) bool {
	if t.Effect != "" && t.Effect != taint.Effect {
		return false
	}
	if t.Key != "" && t.Key != taint.Key {
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

func toleratedBy(tols []corev1.Toleration, taint *corev1.Taint) bool {
	for i := range tols {
		if tolerates(&tols[i], taint) {
			return true
		}
	}
	return false
}

// untoleratedTaint is the node's first NoSchedule or NoExecute taint the
// pod does not tolerate (PreferNoSchedule only lowers the score).
func untoleratedTaint(taints []corev1.Taint, tols []corev1.Toleration) (*corev1.Taint, bool) {
	for i := range taints {
		t := &taints[i]
		if t.Effect != corev1.TaintEffectNoSchedule && t.Effect != corev1.TaintEffectNoExecute {
			continue
		}
		if !toleratedBy(tols, t) {
			return t, true
		}
	}
	return nil, false
}

// countPreferNoSchedule counts the PreferNoSchedule taints the pod's
// tolerations for that effect (or for any effect) do not cover.
func countPreferNoSchedule(taints []corev1.Taint, tols []corev1.Toleration) int {
	n := 0
	for i := range taints {
		t := &taints[i]
		if t.Effect != corev1.TaintEffectPreferNoSchedule {
			continue
		}
		if !toleratedBy(tols, t) {
			n++
		}
	}
	return n
}
