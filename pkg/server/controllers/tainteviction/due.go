package tainteviction

import (
	"time"

	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/toleration"

	corev1 "k8s.io/api/core/v1"
)

// Due says when pod must leave a node with taints: now if a NoExecute
// taint is not tolerated, at the end of the shortest tolerationSeconds
// in use (counted from the earliest taint) otherwise; ok is false when
// the pod may stay for good.
func Due(pod *corev1.Pod, taints []corev1.Taint, now time.Time) (at time.Time, ok bool) {
	var start time.Time
	min := time.Duration(-1)
	any := false
	for i := range taints {
		t := &taints[i]
		if t.Effect != corev1.TaintEffectNoExecute {
			continue
		}
		any = true
		tolerated := false
		for j := range pod.Spec.Tolerations {
			tol := &pod.Spec.Tolerations[j]
			if !toleration.Tolerates(tol, t) {
				continue
			}
			tolerated = true
			if tol.TolerationSeconds != nil {
				d := time.Duration(max(*tol.TolerationSeconds, 0)) * time.Second
				if min < 0 || d < min {
					min = d
				}
			}
		}
		if !tolerated {
			return now, true
		}
		added := now
		if t.TimeAdded != nil {
			added = t.TimeAdded.Time
		}
		if start.IsZero() || added.Before(start) {
			start = added
		}
	}
	if !any || min < 0 {
		return time.Time{}, false
	}
	return start.Add(min), true
}
