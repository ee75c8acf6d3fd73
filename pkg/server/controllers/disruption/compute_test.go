package disruption

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

var now = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func budget(spec policyv1.PodDisruptionBudgetSpec, st policyv1.PodDisruptionBudgetStatus) *policyv1.PodDisruptionBudget {
	return &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: "d", Generation: 2}, Spec: spec, Status: st}
}

func testPod(name string, ready bool, owner types.UID) *corev1.Pod {
	st := corev1.ConditionFalse
	if ready {
		st = corev1.ConditionTrue
	}
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "d"},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: st}}}}
	if owner != "" {
		yes := true
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: owner, Controller: &yes}}
	}
	return p
}

func deleting(p *corev1.Pod) *corev1.Pod {
	t := metav1.NewTime(now)
	p.DeletionTimestamp = &t
	return p
}

func ptr(v intstr.IntOrString) *intstr.IntOrString { return &v }

func TestCompute(t *testing.T) {
	min2 := policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr(intstr.FromInt32(2))}
	type want struct {
		expected, healthy, desired, allowed int32
		reason                              string
		disrupted                           []string
		recheck                             time.Duration
	}
	tests := []struct {
		name   string
		budget *policyv1.PodDisruptionBudget
		pods   []*corev1.Pod
		scales map[types.UID]int32
		want   want
	}{
		{"min int, enough", budget(min2, policyv1.PodDisruptionBudgetStatus{}),
			[]*corev1.Pod{testPod("a", true, ""), testPod("b", true, ""), testPod("c", true, "")}, nil,
			want{3, 3, 2, 1, policyv1.SufficientPodsReason, nil, 0}},
		{"min int, equal to the pods", budget(min2, policyv1.PodDisruptionBudgetStatus{}),
			[]*corev1.Pod{testPod("a", true, ""), testPod("b", true, "")}, nil,
			want{2, 2, 2, 0, policyv1.InsufficientPodsReason, nil, 0}},
		{"unready and deleting pods are not healthy", budget(min2, policyv1.PodDisruptionBudgetStatus{}),
			[]*corev1.Pod{testPod("a", true, ""), testPod("b", false, ""), deleting(testPod("c", true, ""))}, nil,
			want{3, 1, 2, 0, policyv1.InsufficientPodsReason, nil, 0}},
		{"no pods", budget(min2, policyv1.PodDisruptionBudgetStatus{}), nil, nil,
			want{0, 0, 2, 0, policyv1.InsufficientPodsReason, nil, 0}},
		{"recent disruption is not healthy", budget(min2, policyv1.PodDisruptionBudgetStatus{DisruptedPods: map[string]metav1.Time{"a": metav1.NewTime(now.Add(-time.Minute))}}),
			[]*corev1.Pod{testPod("a", true, ""), testPod("b", true, ""), testPod("c", true, "")}, nil,
			want{3, 2, 2, 0, policyv1.InsufficientPodsReason, []string{"a"}, time.Minute}},
		{"stale disruption is forgotten", budget(min2, policyv1.PodDisruptionBudgetStatus{DisruptedPods: map[string]metav1.Time{"a": metav1.NewTime(now.Add(-3 * time.Minute))}}),
			[]*corev1.Pod{testPod("a", true, ""), testPod("b", true, ""), testPod("c", true, "")}, nil,
			want{3, 3, 2, 1, policyv1.SufficientPodsReason, nil, 0}},
		{"max unavailable from the controller's scale", budget(policyv1.PodDisruptionBudgetSpec{MaxUnavailable: ptr(intstr.FromInt32(1))}, policyv1.PodDisruptionBudgetStatus{}),
			[]*corev1.Pod{testPod("a", true, "rs"), testPod("b", true, "rs")}, map[types.UID]int32{"rs": 3},
			want{3, 2, 2, 0, policyv1.InsufficientPodsReason, nil, 0}},
		{"min percent rounds up", budget(policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr(intstr.FromString("50%"))}, policyv1.PodDisruptionBudgetStatus{}),
			[]*corev1.Pod{testPod("a", true, "rs"), testPod("b", true, "rs"), testPod("c", true, "rs")}, map[types.UID]int32{"rs": 3},
			want{3, 3, 2, 1, policyv1.SufficientPodsReason, nil, 0}},
		{"max unavailable, unmanaged pods expect none", budget(policyv1.PodDisruptionBudgetSpec{MaxUnavailable: ptr(intstr.FromInt32(1))}, policyv1.PodDisruptionBudgetStatus{}),
			[]*corev1.Pod{testPod("a", true, ""), testPod("b", true, "")}, nil,
			want{0, 2, 0, 0, policyv1.InsufficientPodsReason, nil, 0}},
		{"controller not found fails safe", budget(policyv1.PodDisruptionBudgetSpec{MaxUnavailable: ptr(intstr.FromString("10%"))}, policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: 3}),
			[]*corev1.Pod{testPod("a", true, "gone")}, nil,
			want{0, 0, 0, 0, policyv1.SyncFailedReason, nil, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := Compute(Input{Budget: tt.budget, Pods: tt.pods, Scales: tt.scales, Now: now})
			st := out.Status
			got := want{st.ExpectedPods, st.CurrentHealthy, st.DesiredHealthy, st.DisruptionsAllowed, "", nil, out.Recheck}
			if c := apimeta.FindStatusCondition(st.Conditions, policyv1.DisruptionAllowedCondition); c != nil {
				got.reason = c.Reason
			}
			for name := range st.DisruptedPods {
				got.disrupted = append(got.disrupted, name)
			}
			if got.reason != tt.want.reason || got.expected != tt.want.expected || got.healthy != tt.want.healthy ||
				got.desired != tt.want.desired || got.allowed != tt.want.allowed || len(got.disrupted) != len(tt.want.disrupted) ||
				got.recheck != tt.want.recheck {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if !out.Changed {
				t.Error("a first computation is not written")
			}
			if tt.want.reason != policyv1.SyncFailedReason && st.ObservedGeneration != 2 {
				t.Errorf("observedGeneration %d, want 2", st.ObservedGeneration)
			}
		})
	}
}

// TestComputeSteady: a budget whose status is already what its pods make
// it is not written again.
func TestComputeSteady(t *testing.T) {
	pdb := budget(policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr(intstr.FromInt32(1))}, policyv1.PodDisruptionBudgetStatus{})
	pods := []*corev1.Pod{testPod("a", true, ""), testPod("b", true, "")}
	first := Compute(Input{Budget: pdb, Pods: pods, Now: now})
	pdb.Status = first.Status
	second := Compute(Input{Budget: pdb, Pods: pods, Now: now.Add(time.Hour)})
	if second.Changed {
		t.Errorf("steady budget rewritten: %+v", second.Status)
	}
}

func TestComputeFailSafeMessage(t *testing.T) {
	pdb := budget(policyv1.PodDisruptionBudgetSpec{MaxUnavailable: ptr(intstr.FromInt32(1))}, policyv1.PodDisruptionBudgetStatus{})
	out := Compute(Input{Budget: pdb, Pods: []*corev1.Pod{testPod("a", true, "gone")}, Now: now})
	c := apimeta.FindStatusCondition(out.Status.Conditions, policyv1.DisruptionAllowedCondition)
	if c == nil || c.Status != metav1.ConditionFalse || c.Message != `found no controllers for pod "a"` {
		t.Errorf("condition %+v, want False SyncFailed for pod a", c)
	}
	if len(out.Events) != 1 || out.Events[0].Reason != "CalculateExpectedPodCountFailed" {
		t.Errorf("events %+v", out.Events)
	}
}
