package daemonset

import (
	"reflect"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

func TestStatus(t *testing.T) {
	ssd := labelledNode("disk", "ssd")
	four := []*corev1.Node{node("n1", ssd), node("n2", ssd), node("n3", ssd), node("n4")}
	onSSD := selecting(map[string]string{"disk": "ssd"})
	tests := []struct {
		name        string
		ds          *appsv1.DaemonSet
		pods        []*corev1.Pod
		observe     bool
		want        appsv1.DaemonSetStatus
		wantRecheck time.Duration
	}{
		{"all served", newDS(onSSD), []*corev1.Pod{pod("a", "n1"), pod("b", "n2"), pod("c", "n3")}, true,
			appsv1.DaemonSetStatus{DesiredNumberScheduled: 3, CurrentNumberScheduled: 3, NumberReady: 3, NumberAvailable: 3, UpdatedNumberScheduled: 3, ObservedGeneration: 3}, 0},
		{"one missing, one old not ready, one misscheduled", newDS(onSSD),
			[]*corev1.Pod{pod("a", "n1"), pod("b", "n2", old, notReady), pod("d", "n4")}, true,
			appsv1.DaemonSetStatus{DesiredNumberScheduled: 3, CurrentNumberScheduled: 2, NumberMisscheduled: 1, NumberReady: 1, NumberAvailable: 1,
				UpdatedNumberScheduled: 1, NumberUnavailable: 2, ObservedGeneration: 3}, 0},
		{"ready but not yet available", newDS(onSSD, minReady(30)),
			[]*corev1.Pod{pod("a", "n1"), pod("b", "n2", readyAt(t0.Add(-10*time.Second))), pod("c", "n3")}, true,
			appsv1.DaemonSetStatus{DesiredNumberScheduled: 3, CurrentNumberScheduled: 3, NumberReady: 3, NumberAvailable: 2,
				UpdatedNumberScheduled: 3, NumberUnavailable: 1, ObservedGeneration: 3}, 30 * time.Second},
		{"the oldest pod of a node counts", newDS(onSSD),
			[]*corev1.Pod{pod("a", "n1", old), pod("a2", "n1", notReady, createdAt(t0))}, true,
			appsv1.DaemonSetStatus{DesiredNumberScheduled: 3, CurrentNumberScheduled: 1, NumberReady: 1, NumberAvailable: 1,
				NumberUnavailable: 2, ObservedGeneration: 3}, 0},
		{"a failed pod still counts as scheduled", newDS(onSSD), []*corev1.Pod{pod("a", "n1", phase(corev1.PodFailed), notReady)}, true,
			appsv1.DaemonSetStatus{DesiredNumberScheduled: 3, CurrentNumberScheduled: 1, UpdatedNumberScheduled: 1, NumberUnavailable: 3, ObservedGeneration: 3}, 0},
		{"expectations pending: generation not observed", newDS(onSSD), nil, false,
			appsv1.DaemonSetStatus{DesiredNumberScheduled: 3, NumberUnavailable: 3, ObservedGeneration: 1}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.ds.Status.ObservedGeneration = 1
			got, recheck := Status(tt.ds, four, GroupByNode(tt.pods), curHash, tt.observe, t0)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Status =\n%+v\nwant\n%+v", got, tt.want)
			}
			if recheck != tt.wantRecheck {
				t.Errorf("recheck %v, want %v", recheck, tt.wantRecheck)
			}
		})
	}
}
