package tainteviction

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestDue(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	added := metav1.NewTime(t0)
	unreachable := corev1.Taint{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoExecute, TimeAdded: &added}
	notReadySched := corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}
	secs := func(n int64) *int64 { return &n }
	tol := func(key string, s *int64) corev1.Toleration {
		return corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: s}
	}
	tests := []struct {
		name   string
		taints []corev1.Taint
		tols   []corev1.Toleration
		now    time.Time
		wantOK bool
		wantAt time.Time
	}{
		{"no NoExecute taint", []corev1.Taint{notReadySched}, nil, t0, false, time.Time{}},
		{"untolerated goes now", []corev1.Taint{unreachable}, nil, t0.Add(time.Minute), true, t0.Add(time.Minute)},
		{"default 300 s toleration", []corev1.Taint{unreachable}, []corev1.Toleration{tol(corev1.TaintNodeUnreachable, secs(300))}, t0, true, t0.Add(300 * time.Second)},
		{"shortest toleration wins", []corev1.Taint{unreachable}, []corev1.Toleration{tol(corev1.TaintNodeUnreachable, secs(300)), tol("", secs(30))}, t0, true, t0.Add(30 * time.Second)},
		{"tolerated for ever stays", []corev1.Taint{unreachable}, []corev1.Toleration{tol(corev1.TaintNodeUnreachable, nil)}, t0, false, time.Time{}},
		{"negative seconds is now", []corev1.Taint{unreachable}, []corev1.Toleration{tol(corev1.TaintNodeUnreachable, secs(-5))}, t0, true, t0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := &corev1.Pod{Spec: corev1.PodSpec{Tolerations: tt.tols}}
			at, ok := Due(pod, tt.taints, tt.now)
			if ok != tt.wantOK || !at.Equal(tt.wantAt) {
				t.Errorf("Due = %s, %v; want %s, %v", at, ok, tt.wantAt, tt.wantOK)
			}
		})
	}
}
