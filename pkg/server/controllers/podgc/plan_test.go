package podgc

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

var t0 = time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)

// pod is a pod named name, created age before t0, changed by mutate.
func pod(name string, age time.Duration, mutate ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name), CreationTimestamp: metav1.NewTime(t0.Add(-age))},
		Spec:       corev1.PodSpec{NodeName: "n1"},
		Status:     corev1.PodStatus{Phase: corev1.PodRunning},
	}
	for _, m := range mutate {
		m(p)
	}
	return p
}

func phase(ph corev1.PodPhase) func(*corev1.Pod) { return func(p *corev1.Pod) { p.Status.Phase = ph } }
func on(node string) func(*corev1.Pod)           { return func(p *corev1.Pod) { p.Spec.NodeName = node } }
func evicted(p *corev1.Pod)                      { p.Status.Phase, p.Status.Reason = corev1.PodFailed, "Evicted" }
func deleting(p *corev1.Pod) {
	ts := metav1.NewTime(t0)
	p.DeletionTimestamp = &ts
}

func node(name string, ready corev1.ConditionStatus, taints ...string) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: ready}}}}
	for _, k := range taints {
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: k, Effect: corev1.TaintEffectNoExecute})
	}
	return n
}

func summary(ds []Deletion) string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Pod.Name+":"+string(d.Reason))
	}
	return strings.Join(out, ",")
}

func TestPlan(t *testing.T) {
	ready := node("n1", corev1.ConditionTrue)
	tests := []struct {
		name      string
		pods      []*corev1.Pod
		nodes     []*corev1.Node
		threshold int
		want      string
	}{
		{"under the threshold nothing goes",
			[]*corev1.Pod{pod("a", time.Hour, phase(corev1.PodSucceeded)), pod("b", time.Minute, phase(corev1.PodFailed)), pod("run", 2*time.Hour)},
			[]*corev1.Node{ready}, 2, ""},
		{"the oldest terminated pods beyond the threshold go",
			[]*corev1.Pod{pod("new", time.Minute, phase(corev1.PodSucceeded)), pod("old", time.Hour, phase(corev1.PodFailed)),
				pod("mid", 10*time.Minute, phase(corev1.PodSucceeded)), pod("running", 2*time.Hour), pod("pending", 3*time.Hour, phase(corev1.PodPending)),
				pod("unknown", 4*time.Hour, phase(corev1.PodUnknown))},
			[]*corev1.Node{ready}, 1, "old:terminated,mid:terminated"},
		{"evicted pods go before older ones, same age by name",
			[]*corev1.Pod{pod("old", time.Hour, phase(corev1.PodSucceeded)), pod("ev", time.Minute, evicted),
				pod("b", 30*time.Minute, phase(corev1.PodFailed)), pod("a", 30*time.Minute, phase(corev1.PodFailed))},
			[]*corev1.Node{ready}, 1, "ev:terminated,old:terminated,a:terminated"},
		{"an empty phase counts as terminated, as in kube",
			[]*corev1.Pod{pod("nophase", time.Hour, phase("")), pod("done", time.Minute, phase(corev1.PodSucceeded))},
			[]*corev1.Node{ready}, 1, "nophase:terminated"},
		{"a threshold of 0 keeps every terminated pod",
			[]*corev1.Pod{pod("a", time.Hour, phase(corev1.PodSucceeded)), pod("b", time.Minute, phase(corev1.PodFailed))},
			[]*corev1.Node{ready}, 0, ""},
		{"terminating pods on an out-of-service node that is not ready go",
			[]*corev1.Pod{pod("stuck", time.Hour, deleting), pod("alive", time.Hour), pod("elsewhere", time.Hour, deleting, on("n2")), pod("readynode", time.Hour, deleting, on("n3"))},
			[]*corev1.Node{node("n1", corev1.ConditionUnknown, corev1.TaintNodeOutOfService), node("n2", corev1.ConditionFalse),
				node("n3", corev1.ConditionTrue, corev1.TaintNodeOutOfService)}, 10, "stuck:out-of-service"},
		{"unscheduled terminating pods go, scheduled or live ones stay",
			[]*corev1.Pod{pod("gone", time.Hour, deleting, on("")), pod("pending", time.Hour, on(""), phase(corev1.PodPending)), pod("bound", time.Hour, deleting)},
			[]*corev1.Node{ready}, 10, "gone:unscheduled"},
		{"a pod is collected once, for its first reason",
			[]*corev1.Pod{pod("both", time.Hour, phase(corev1.PodFailed), deleting, on("")), pod("x", time.Minute, phase(corev1.PodFailed))},
			[]*corev1.Node{ready}, 1, "both:terminated"},
		{"pods on missing nodes wait for the quarantine",
			[]*corev1.Pod{pod("orphan", time.Hour, on("nowhere"))}, []*corev1.Node{ready}, 10, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := summary(Plan(tt.pods, tt.nodes, tt.threshold)); got != tt.want {
				t.Errorf("Plan = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestOrphans(t *testing.T) {
	pods := []*corev1.Pod{pod("a", time.Hour, on("gone")), pod("b", time.Hour), pod("c", time.Hour, on("")), pod("d", time.Hour, on("gone"), phase(corev1.PodSucceeded))}
	got := Orphans(pods, map[string]bool{"gone": true})
	if s := summary(got); s != "a:orphaned,d:orphaned" {
		t.Fatalf("Orphans = %q, want a and d orphaned", s)
	}
	want := corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: "DeletionByPodGC", Message: "PodGC: node no longer exists"}
	if c := got[0].Condition; c == nil || *c != want {
		t.Errorf("condition %+v, want %+v", c, want)
	}
}

func TestSetCondition(t *testing.T) {
	before, now := metav1.NewTime(t0.Add(-time.Hour)), metav1.NewTime(t0)
	cond := corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: "DeletionByPodGC"}
	tests := []struct {
		name     string
		existing []corev1.PodCondition
		wantLen  int
		wantTime metav1.Time
	}{
		{"added", []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}, 2, now},
		{"same status keeps its transition", []corev1.PodCondition{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: "Other", LastTransitionTime: before}}, 1, before},
		{"status change moves the transition", []corev1.PodCondition{{Type: corev1.DisruptionTarget, Status: corev1.ConditionFalse, LastTransitionTime: before}}, 1, now},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := corev1.PodStatus{Conditions: tt.existing}
			setCondition(&st, cond, now)
			if len(st.Conditions) != tt.wantLen {
				t.Fatalf("%d conditions, want %d", len(st.Conditions), tt.wantLen)
			}
			got := st.Conditions[len(st.Conditions)-1]
			if got.Reason != "DeletionByPodGC" || !got.LastTransitionTime.Equal(&tt.wantTime) {
				t.Errorf("condition %+v, want reason DeletionByPodGC at %s", got, tt.wantTime)
			}
		})
	}
}
