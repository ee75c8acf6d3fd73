package replicaset

import (
	"errors"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

var t0 = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

func newRS(replicas int32) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: "rs-uid", Generation: 2},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web", "tier": "front"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
			},
		},
	}
}

// pod is a pod named name; opts shape it.
func pod(name string, opts ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(name + "-uid"),
		Labels: map[string]string{"app": "web", "tier": "front"}, CreationTimestamp: metav1.NewTime(t0.Add(-time.Hour))}}
	p.Status.Phase = corev1.PodRunning
	p.Spec.NodeName = "n1"
	for _, o := range opts {
		o(p)
	}
	return p
}

func labelled(l map[string]string) func(*corev1.Pod) { return func(p *corev1.Pod) { p.Labels = l } }

func readyAt(t time.Time) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(t)}}
	}
}

func names(pods []*corev1.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Name
	}
	return out
}

func TestDeletionOrder(t *testing.T) {
	cost := func(v string) func(*corev1.Pod) {
		return func(p *corev1.Pod) { p.Annotations = map[string]string{deletionCostAnnotation: v} }
	}
	created := func(d time.Duration) func(*corev1.Pod) {
		return func(p *corev1.Pod) { p.CreationTimestamp = metav1.NewTime(t0.Add(-d)) }
	}
	restarts := func(n int32) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", RestartCount: n}}
		}
	}
	on := func(node string) func(*corev1.Pod) { return func(p *corev1.Pod) { p.Spec.NodeName = node } }
	phase := func(ph corev1.PodPhase) func(*corev1.Pod) { return func(p *corev1.Pod) { p.Status.Phase = ph } }
	ready := readyAt(t0.Add(-time.Hour))
	tests := []struct {
		name    string
		pods    []*corev1.Pod
		related []*corev1.Pod
		want    []string
	}{
		{name: "unscheduled first", pods: []*corev1.Pod{pod("a", ready), pod("b", on(""), ready)}, want: []string{"b", "a"}},
		{name: "pending, unknown, running", pods: []*corev1.Pod{pod("run"), pod("unk", phase(corev1.PodUnknown)), pod("pend", phase(corev1.PodPending))},
			want: []string{"pend", "unk", "run"}},
		{name: "not ready first", pods: []*corev1.Pod{pod("r", ready), pod("nr")}, want: []string{"nr", "r"}},
		{name: "lower deletion cost first", pods: []*corev1.Pod{pod("hi", ready, cost("10")), pod("lo", ready, cost("-5")), pod("bad", ready, cost("+3"))},
			want: []string{"lo", "bad", "hi"}},
		{name: "doubled-up node first", pods: []*corev1.Pod{pod("alone", ready, on("n1")), pod("crowded", ready, on("n2"))},
			related: []*corev1.Pod{pod("x", on("n2")), pod("y", on("n2")), pod("alone", on("n1"))}, want: []string{"crowded", "alone"}},
		{name: "ready for less time first", pods: []*corev1.Pod{pod("old", readyAt(t0.Add(-10*time.Hour))), pod("new", readyAt(t0.Add(-time.Minute)))},
			want: []string{"new", "old"}},
		{name: "more restarts first", pods: []*corev1.Pod{pod("calm", ready, restarts(0)), pod("flappy", ready, restarts(4))}, want: []string{"flappy", "calm"}},
		{name: "newer first", pods: []*corev1.Pod{pod("older", ready, created(10*time.Hour)), pod("newer", ready, created(time.Minute))},
			want: []string{"newer", "older"}},
		// 40 and 70 minutes old share a power of two of age (2^41 ns is
		// 36.7 minutes, 2^42 is 73.3): the UID
		// decides ("a-uid" < "b-uid").
		{name: "same age bucket by uid", pods: []*corev1.Pod{pod("b", ready, created(40*time.Minute)), pod("a", ready, created(70*time.Minute))},
			want: []string{"a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			related := tt.related
			if related == nil {
				related = tt.pods
			}
			if got := names(DeletionOrder(tt.pods, related, t0)); !slices.Equal(got, tt.want) {
				t.Errorf("DeletionOrder = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPlan(t *testing.T) {
	many := func(n int) []*corev1.Pod {
		out := make([]*corev1.Pod, n)
		for i := range out {
			out[i] = pod("p" + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676)))
		}
		return out
	}
	deleting := metav1.NewTime(t0)
	tests := []struct {
		name       string
		replicas   int32
		owned      int
		deleting   bool
		wantCreate int
		wantDelete int
	}{
		{name: "scale up", replicas: 5, owned: 2, wantCreate: 3},
		{name: "scale up bounded by the burst", replicas: 2000, owned: 0, wantCreate: burstReplicas},
		{name: "scale down", replicas: 1, owned: 4, wantDelete: 3},
		{name: "scale down bounded by the burst", replicas: 0, owned: 600, wantDelete: burstReplicas},
		{name: "steady", replicas: 3, owned: 3},
		{name: "being deleted", replicas: 5, owned: 1, deleting: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := newRS(tt.replicas)
			if tt.deleting {
				rs.DeletionTimestamp = &deleting
			}
			owned := many(tt.owned)
			c := Plan(rs, owned, owned, t0)
			if c.Create != tt.wantCreate || len(c.Delete) != tt.wantDelete {
				t.Errorf("Plan = create %d, delete %d; want %d, %d", c.Create, len(c.Delete), tt.wantCreate, tt.wantDelete)
			}
		})
	}
}

func TestStatus(t *testing.T) {
	failure := errors.New("pods \"web-x\" is forbidden: exceeded quota")
	tests := []struct {
		name        string
		minReady    int32
		owned       []*corev1.Pod
		manageErr   error
		prior       []appsv1.ReplicaSetCondition
		want        appsv1.ReplicaSetStatus
		wantRecheck time.Duration
	}{
		{
			name:  "counts",
			owned: []*corev1.Pod{pod("a", readyAt(t0.Add(-time.Minute))), pod("b", labelled(map[string]string{"app": "web"})), pod("c")},
			want:  appsv1.ReplicaSetStatus{Replicas: 3, FullyLabeledReplicas: 2, ReadyReplicas: 1, AvailableReplicas: 1, ObservedGeneration: 2},
		},
		{
			name: "minReadySeconds holds availability back", minReady: 30,
			owned:       []*corev1.Pod{pod("a", readyAt(t0.Add(-10*time.Second))), pod("b", readyAt(t0.Add(-time.Minute)))},
			want:        appsv1.ReplicaSetStatus{Replicas: 2, FullyLabeledReplicas: 2, ReadyReplicas: 2, AvailableReplicas: 1, ObservedGeneration: 2},
			wantRecheck: 20 * time.Second,
		},
		{
			name: "a failed create sets ReplicaFailure", owned: []*corev1.Pod{pod("a")}, manageErr: failure,
			want: appsv1.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 1, ObservedGeneration: 2, Conditions: []appsv1.ReplicaSetCondition{{
				Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0),
				Reason: "FailedCreate", Message: failure.Error(),
			}}},
		},
		{
			name: "a good pass clears it", owned: []*corev1.Pod{pod("a")},
			prior: []appsv1.ReplicaSetCondition{{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate"}},
			want:  appsv1.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 1, ObservedGeneration: 2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := newRS(3)
			rs.Spec.MinReadySeconds = tt.minReady
			rs.Status.Conditions = tt.prior
			got, recheck := Status(rs, tt.owned, tt.manageErr, t0)
			if !equalStatus(got, tt.want) {
				t.Errorf("Status = %+v\nwant %+v", got, tt.want)
			}
			if recheck != tt.wantRecheck {
				t.Errorf("recheck = %v, want %v", recheck, tt.wantRecheck)
			}
		})
	}
}

func equalStatus(a, b appsv1.ReplicaSetStatus) bool {
	if len(a.Conditions) == 0 && len(b.Conditions) == 0 {
		a.Conditions, b.Conditions = nil, nil
	}
	return a.Replicas == b.Replicas && a.FullyLabeledReplicas == b.FullyLabeledReplicas && a.ReadyReplicas == b.ReadyReplicas &&
		a.AvailableReplicas == b.AvailableReplicas && a.ObservedGeneration == b.ObservedGeneration &&
		slices.EqualFunc(a.Conditions, b.Conditions, func(x, y appsv1.ReplicaSetCondition) bool {
			return x.Type == y.Type && x.Status == y.Status && x.Reason == y.Reason && x.Message == y.Message && x.LastTransitionTime.Equal(&y.LastTransitionTime)
		})
}

func TestPodFromTemplate(t *testing.T) {
	rs := newRS(1)
	rs.Spec.Template.Annotations = map[string]string{"a": "b"}
	p, err := podFromTemplate(rs)
	if err != nil {
		t.Fatal(err)
	}
	ref := metav1.GetControllerOf(p)
	if p.GenerateName != "web-" || p.Namespace != "ns" || p.Labels["tier"] != "front" || p.Annotations["a"] != "b" ||
		ref == nil || ref.UID != rs.UID || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion || p.Spec.Containers[0].Image != "nginx" {
		t.Errorf("podFromTemplate = %+v", p)
	}
	p.Labels["tier"] = "changed"
	if rs.Spec.Template.Labels["tier"] != "front" {
		t.Error("the pod shares the template's labels")
	}
	rs.Spec.Template.Labels = nil
	if _, err := podFromTemplate(rs); !errors.Is(err, errNoLabels) {
		t.Errorf("no labels: %v, want %v", err, errNoLabels)
	}
}

func TestDeletionAgeRatios(t *testing.T) {
	now := t0
	born := func(ago time.Duration) func(*corev1.Pod) {
		return func(p *corev1.Pod) { p.CreationTimestamp = metav1.NewTime(now.Add(-ago)) }
	}
	ready := readyAt(now.Add(-time.Minute))
	young := pod("young", born(time.Minute), ready)
	old := pod("old", born(3*time.Minute+time.Second), ready)
	older := pod("older", born(10*time.Minute), ready)
	unready := pod("unready", born(time.Hour))
	owned := []*corev1.Pod{young, old, older, unready}
	tests := []struct {
		name   string
		chosen []*corev1.Pod
		want   []float64
	}{
		{"whole ratios to the youngest ready pod", []*corev1.Pod{older, old}, []float64{10, 3}},
		{"unready pods are not reported", []*corev1.Pod{unready, old}, []float64{3}},
		{"none when every pod goes", owned, nil},
		{"none when none goes", nil, nil},
	}
	for _, tt := range tests {
		if got := DeletionAgeRatios(owned, tt.chosen, now); !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}
