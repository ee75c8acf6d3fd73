package disruption

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestStaleDisruption(t *testing.T) {
	marked := func(status corev1.ConditionStatus, reason string, ago time.Duration) *corev1.Pod {
		p := testPod("p", true, "")
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.DisruptionTarget, Status: status,
			Reason: reason, LastTransitionTime: metav1.NewTime(now.Add(-ago))})
		return p
	}
	finished := marked(corev1.ConditionTrue, "EvictionByEvictionAPI", time.Hour)
	finished.Status.Phase = corev1.PodSucceeded
	tests := []struct {
		name string
		pod  *corev1.Pod
		has  bool
		wait time.Duration
	}{
		{"no condition", testPod("p", true, ""), false, 0},
		{"fresh", marked(corev1.ConditionTrue, "EvictionByEvictionAPI", 30*time.Second), true, 90 * time.Second},
		{"stale", marked(corev1.ConditionTrue, "EvictionByEvictionAPI", 3*time.Minute), true, 0},
		{"already false", marked(corev1.ConditionFalse, "", time.Hour), false, 0},
		{"the kubelet's", marked(corev1.ConditionTrue, corev1.PodReasonTerminationByKubelet, time.Hour), false, 0},
		{"being deleted", deleting(marked(corev1.ConditionTrue, "EvictionByEvictionAPI", time.Hour)), false, 0},
		{"finished", finished, false, 0},
	}
	for _, tt := range tests {
		has, wait := StaleDisruption(tt.pod, now)
		if has != tt.has || wait != tt.wait {
			t.Errorf("%s: %v %v, want %v %v", tt.name, has, wait, tt.has, tt.wait)
		}
	}
	p := marked(corev1.ConditionTrue, "EvictionByEvictionAPI", time.Hour)
	clearDisruption(p, now)
	if c := p.Status.Conditions[1]; c.Status != corev1.ConditionFalse || c.Reason != "" || !c.LastTransitionTime.Time.Equal(now) {
		t.Errorf("cleared condition %+v", c)
	}
}
