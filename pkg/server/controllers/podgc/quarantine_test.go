package podgc

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// TestQuarantine walks a quarantine through looks 20 s apart, as the
// collector makes them.
func TestQuarantine(t *testing.T) {
	n1 := node("n1", corev1.ConditionTrue)
	a, b := pod("a", time.Hour, on("gone")), pod("b", time.Hour, on("late"))
	steps := []struct {
		name    string
		at      time.Duration
		pods    []*corev1.Pod
		nodes   []*corev1.Node
		checked []string
		want    []string
	}{
		{"first seen missing", 0, []*corev1.Pod{a, b}, []*corev1.Node{n1}, nil, nil},
		{"still in quarantine", 20 * time.Second, []*corev1.Pod{a, b}, []*corev1.Node{n1}, nil, nil},
		{"the node that appeared leaves quarantine", 30 * time.Second, []*corev1.Pod{a, b}, []*corev1.Node{n1, node("late", corev1.ConditionTrue)}, nil, nil},
		{"quarantine over: suspect", 40 * time.Second, []*corev1.Pod{a, b}, []*corev1.Node{n1}, []string{"gone"}, []string{"gone"}},
		{"a checked node waits a whole quarantine again", 60 * time.Second, []*corev1.Pod{a, b}, []*corev1.Node{n1}, nil, nil},
		{"the node that vanished again is due 40 s after", 80 * time.Second, []*corev1.Pod{a, b}, []*corev1.Node{n1}, nil, []string{"late"}},
		{"both due, unchecked ones stay due", 100 * time.Second, []*corev1.Pod{a, b}, []*corev1.Node{n1}, nil, []string{"gone", "late"}},
		{"no pod bound any more: forgotten", 101 * time.Second, []*corev1.Pod{pod("c", time.Hour)}, []*corev1.Node{n1}, nil, nil},
		{"pods back: a fresh quarantine", 102 * time.Second, []*corev1.Pod{a}, []*corev1.Node{n1}, nil, nil},
	}
	var q Quarantine
	for _, s := range steps {
		got := q.Observe(s.pods, s.nodes, t0.Add(s.at), DefaultQuarantine)
		if !slices.Equal(got, s.want) {
			t.Errorf("%s: Observe = %v, want %v", s.name, got, s.want)
		}
		for _, name := range s.checked {
			q.Checked(name)
		}
	}
}
