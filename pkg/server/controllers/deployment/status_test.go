package deployment

import (
	"fmt"
	"math"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func condString(c *appsv1.DeploymentCondition) string {
	if c == nil {
		return "none"
	}
	return fmt.Sprintf("%s/%s %q", c.Status, c.Reason, c.Message)
}

func TestStatus(t *testing.T) {
	tests := []struct {
		name      string
		d         *appsv1.Deployment
		sets      []*appsv1.ReplicaSet
		want      string
		available string
	}{
		{"all available", dep(5, "1", "1"), []*appsv1.ReplicaSet{rs("web-new", 1, 5, 5)},
			"replicas 5 updated 5 ready 5 available 5 unavailable 0 generation 1", `True/MinimumReplicasAvailable "Deployment has minimum availability."`},
		{"at the minimum", dep(5, "1", "1"), []*appsv1.ReplicaSet{rs("web-new", 1, 2, 0), rs("old", 9, 4, 4)},
			"replicas 6 updated 2 ready 4 available 4 unavailable 2 generation 1", `True/MinimumReplicasAvailable "Deployment has minimum availability."`},
		{"below the minimum", dep(5, "1", "1"), []*appsv1.ReplicaSet{rs("web-new", 1, 5, 3)},
			"replicas 5 updated 5 ready 3 available 3 unavailable 2 generation 1", `False/MinimumReplicasUnavailable "Deployment does not have minimum availability."`},
		{"no new set", dep(2, "1", "1"), []*appsv1.ReplicaSet{nil, rs("old", 9, 2, 2)},
			"replicas 2 updated 0 ready 2 available 2 unavailable 0 generation 1", `True/MinimumReplicasAvailable "Deployment has minimum availability."`},
	}
	for _, tt := range tests {
		st := Status(tt.d, tt.sets, tt.sets[0], t0)
		got := fmt.Sprintf("replicas %d updated %d ready %d available %d unavailable %d generation %d",
			st.Replicas, st.UpdatedReplicas, st.ReadyReplicas, st.AvailableReplicas, st.UnavailableReplicas, st.ObservedGeneration)
		if got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
		if got := condString(condition(st, appsv1.DeploymentAvailable)); got != tt.available {
			t.Errorf("%s: Available %s, want %s", tt.name, got, tt.available)
		}
	}
}

func TestRolloutStatus(t *testing.T) {
	progressingSince := func(reason string, at time.Time) func(*appsv1.Deployment) {
		return func(d *appsv1.Deployment) {
			d.Status.Conditions = []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: reason,
				LastUpdateTime: metav1.NewTime(at), LastTransitionTime: metav1.NewTime(at.Add(-time.Hour))}}
		}
	}
	before := func(updated, ready, available, total int32) func(*appsv1.Deployment) {
		return func(d *appsv1.Deployment) {
			d.Status.UpdatedReplicas, d.Status.ReadyReplicas, d.Status.AvailableReplicas, d.Status.Replicas = updated, ready, available, total
		}
	}
	noDeadline := func(d *appsv1.Deployment) { max := int32(math.MaxInt32); d.Spec.ProgressDeadlineSeconds = &max }
	tests := []struct {
		name        string
		shape       []func(*appsv1.Deployment)
		sets        []*appsv1.ReplicaSet
		progressing string
		updatedAt   time.Time // want LastUpdateTime of Progressing
		recheck     time.Duration
	}{
		{"complete", []func(*appsv1.Deployment){progressingSince(ReasonReplicaSetUpdated, t0.Add(-time.Minute)), before(2, 3, 3, 3)},
			[]*appsv1.ReplicaSet{rs("web-abc", 1, 3, 3)}, `True/NewReplicaSetAvailable "ReplicaSet \"web-abc\" has successfully progressed."`, t0, 0},
		{"progressing: more updated pods", []func(*appsv1.Deployment){progressingSince(ReasonNewReplicaSet, t0.Add(-time.Minute)), before(1, 3, 3, 4)},
			[]*appsv1.ReplicaSet{rs("web-abc", 1, 2, 1), rs("old", 9, 2, 2)}, `True/ReplicaSetUpdated "ReplicaSet \"web-abc\" is progressing."`, t0, 541 * time.Second},
		{"progress again restarts the clock", []func(*appsv1.Deployment){progressingSince(ReasonReplicaSetUpdated, t0.Add(-time.Minute)), before(1, 3, 3, 4)},
			[]*appsv1.ReplicaSet{rs("web-abc", 1, 2, 1), rs("old", 9, 2, 2)}, `True/ReplicaSetUpdated "ReplicaSet \"web-abc\" is progressing."`, t0, 541 * time.Second},
		{"stuck within the deadline", []func(*appsv1.Deployment){progressingSince(ReasonReplicaSetUpdated, t0.Add(-time.Minute)), before(2, 3, 3, 4)},
			[]*appsv1.ReplicaSet{rs("web-abc", 1, 2, 1), rs("old", 9, 2, 2)}, `True/ReplicaSetUpdated ""`, t0.Add(-time.Minute), 541 * time.Second},
		{"stuck past the deadline", []func(*appsv1.Deployment){progressingSince(ReasonReplicaSetUpdated, t0.Add(-11*time.Minute)), before(2, 3, 3, 4)},
			[]*appsv1.ReplicaSet{rs("web-abc", 1, 2, 1), rs("old", 9, 2, 2)}, `False/ProgressDeadlineExceeded "ReplicaSet \"web-abc\" has timed out progressing."`, t0, time.Second},
		{"no new set yet", []func(*appsv1.Deployment){progressingSince(ReasonReplicaSetUpdated, t0.Add(-11*time.Minute)), before(0, 3, 3, 3)},
			[]*appsv1.ReplicaSet{nil, rs("old", 9, 3, 3)}, `False/ProgressDeadlineExceeded "Deployment \"web\" has timed out progressing."`, t0, time.Second},
		{"no deadline", []func(*appsv1.Deployment){progressingSince(ReasonReplicaSetUpdated, t0.Add(-11*time.Minute)), noDeadline},
			[]*appsv1.ReplicaSet{rs("web-abc", 1, 2, 1)}, "none", time.Time{}, 0},
	}
	for _, tt := range tests {
		d := dep(3, "1", "1")
		for _, s := range tt.shape {
			s(d)
		}
		transition := condition(d.Status, appsv1.DeploymentProgressing).LastTransitionTime
		st, recheck := RolloutStatus(d, tt.sets, tt.sets[0], t0)
		c := condition(st, appsv1.DeploymentProgressing)
		got := condString(c)
		if c != nil && c.Reason == ReasonReplicaSetUpdated && c.LastUpdateTime.Time.Equal(tt.updatedAt) && c.Message == "" {
			got = `True/ReplicaSetUpdated ""`
		}
		if got != tt.progressing {
			t.Errorf("%s: Progressing %s, want %s", tt.name, got, tt.progressing)
		}
		if c != nil && !c.LastUpdateTime.Time.Equal(tt.updatedAt) {
			t.Errorf("%s: Progressing updated at %v, want %v", tt.name, c.LastUpdateTime, tt.updatedAt)
		}
		if c != nil && c.Status == corev1.ConditionTrue && !c.LastTransitionTime.Equal(&transition) {
			t.Errorf("%s: a True condition staying True moved its transition time to %v", tt.name, c.LastTransitionTime)
		}
		if recheck != tt.recheck {
			t.Errorf("%s: recheck %v, want %v", tt.name, recheck, tt.recheck)
		}
	}
}

func TestReplicaFailureMirrored(t *testing.T) {
	failing := func(r *appsv1.ReplicaSet) {
		r.Status.Conditions = []appsv1.ReplicaSetCondition{{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate", Message: "quota"}}
	}
	d := dep(3, "1", "1")
	st, _ := RolloutStatus(d, []*appsv1.ReplicaSet{rs("web-abc", 1, 3, 0, failing)}, nil, t0)
	if got := condString(condition(st, appsv1.DeploymentReplicaFailure)); got != `True/FailedCreate "quota"` {
		t.Errorf("ReplicaFailure %s", got)
	}
	d.Status = st
	st, _ = RolloutStatus(d, []*appsv1.ReplicaSet{rs("web-abc", 1, 3, 0)}, nil, t0)
	if c := condition(st, appsv1.DeploymentReplicaFailure); c != nil {
		t.Errorf("ReplicaFailure kept: %s", condString(c))
	}
}

func TestPausedCondition(t *testing.T) {
	with := func(paused bool, reason string) *appsv1.Deployment {
		d := dep(3, "1", "1")
		d.Spec.Paused = paused
		if reason != "" {
			d.Status.Conditions = []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: reason}}
		}
		return d
	}
	noDeadline := with(true, "")
	max := int32(math.MaxInt32)
	noDeadline.Spec.ProgressDeadlineSeconds = &max
	tests := []struct {
		name    string
		d       *appsv1.Deployment
		want    string
		changed bool
	}{
		{"paused", with(true, ReasonNewRSAvailable), `Unknown/DeploymentPaused "Deployment is paused"`, true},
		{"already shown", with(true, ReasonPaused), `True/DeploymentPaused ""`, false},
		{"resumed", with(false, ReasonPaused), `Unknown/DeploymentResumed "Deployment is resumed"`, true},
		{"running", with(false, ReasonNewRSAvailable), `True/NewReplicaSetAvailable ""`, false},
		{"timed out stays", with(true, ReasonTimedOut), `True/ProgressDeadlineExceeded ""`, false},
		{"no deadline", noDeadline, "none", false},
	}
	for _, tt := range tests {
		st, changed := PausedCondition(tt.d, t0)
		if got := condString(condition(st, appsv1.DeploymentProgressing)); got != tt.want || changed != tt.changed {
			t.Errorf("%s: %s (changed %v), want %s (changed %v)", tt.name, got, changed, tt.want, tt.changed)
		}
	}
}
