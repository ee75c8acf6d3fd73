package replicaset

import (
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/podcondition"
)

// DeletionAgeRatios are what kube's replicaset_controller_sorting_deletion_age_ratio
// observes for a scale-down that keeps some of owned: for each Ready pod
// chosen, its age over the age of the youngest Ready pod owned. As in
// kube, the ages are whole milliseconds divided as integers, so the
// ratios are whole numbers; a youngest pod under a millisecond old
// gives none.
func DeletionAgeRatios(owned, chosen []*corev1.Pod, now time.Time) []float64 {
	if len(chosen) == 0 || len(chosen) >= len(owned) {
		return nil // kube sorts, and reports, only when some pods stay
	}
	var youngest time.Time
	for _, p := range owned {
		if p.CreationTimestamp.After(youngest) && podcondition.True(p, corev1.PodReady) {
			youngest = p.CreationTimestamp.Time
		}
	}
	base := now.Sub(youngest).Milliseconds()
	if youngest.IsZero() || base <= 0 {
		return nil
	}
	var out []float64
	for _, p := range chosen {
		if podcondition.True(p, corev1.PodReady) {
			out = append(out, float64(now.Sub(p.CreationTimestamp.Time).Milliseconds()/base))
		}
	}
	return out
}
