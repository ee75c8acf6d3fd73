package placement

import (
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/toleration"
	corev1 "k8s.io/api/core/v1"
)

// untoleratedTaint is the node's first NoSchedule or NoExecute taint the
// pod does not tolerate (PreferNoSchedule only lowers the score).
func untoleratedTaint(taints []corev1.Taint, tols []corev1.Toleration) (*corev1.Taint, bool) {
	for i := range taints {
		t := &taints[i]
		if t.Effect != corev1.TaintEffectNoSchedule && t.Effect != corev1.TaintEffectNoExecute {
			continue
		}
		if !toleration.Any(tols, t) {
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
		if !toleration.Any(tols, t) {
			n++
		}
	}
	return n
}
