package expectations

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func TestSatisfied(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	owner := types.NamespacedName{Namespace: "ns", Name: "ds"}
	gone := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "old", UID: "old-uid"}}
	created := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "new", UID: "new-uid"}}
	deleting := metav1.NewTime(t0)
	tests := []struct {
		name   string
		cache  []*corev1.Pod
		at     time.Time
		undo   bool
		forget bool
		want   bool
	}{
		{"nothing seen", []*corev1.Pod{gone}, t0, false, false, false},
		{"created seen, deleted still there", []*corev1.Pod{created, gone}, t0, false, false, false},
		{"both seen", []*corev1.Pod{created}, t0, false, false, true},
		{"deleted going", []*corev1.Pod{created, {ObjectMeta: metav1.ObjectMeta{Name: "old", UID: "old-uid", DeletionTimestamp: &deleting}}}, t0, false, false, true},
		{"deleted replaced by a namesake", []*corev1.Pod{created, {ObjectMeta: metav1.ObjectMeta{Name: "old", UID: "other"}}}, t0, false, false, true},
		{"failed delete undone", []*corev1.Pod{created, gone}, t0, true, false, true},
		{"timed out", nil, t0.Add(Timeout), false, false, true},
		{"forgotten", nil, t0, false, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e Expectations
			e.Created(owner, "new", t0)
			e.Deleting(owner, gone, t0)
			if tt.undo {
				e.Undo(owner, gone.UID)
			}
			if tt.forget {
				e.Forget(owner)
			}
			if got := e.Satisfied(owner, tt.cache, tt.at); got != tt.want {
				t.Errorf("Satisfied = %v, want %v", got, tt.want)
			}
			if !e.Satisfied(types.NamespacedName{Name: "other"}, nil, t0) {
				t.Error("an owner without expectations is not satisfied")
			}
		})
	}
}
