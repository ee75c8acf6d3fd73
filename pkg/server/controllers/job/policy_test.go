package job

import (
	"maps"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

func TestMatchFailurePolicy(t *testing.T) {
	exitRule := func(action batchv1.PodFailurePolicyAction, op batchv1.PodFailurePolicyOnExitCodesOperator, container *string, codes ...int32) batchv1.PodFailurePolicyRule {
		return batchv1.PodFailurePolicyRule{Action: action, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{ContainerName: container, Operator: op, Values: codes}}
	}
	condRule := func(action batchv1.PodFailurePolicyAction, ct corev1.PodConditionType) batchv1.PodFailurePolicyRule {
		return batchv1.PodFailurePolicyRule{Action: action, OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: ct, Status: corev1.ConditionTrue}}}
	}
	disrupted := func(p *corev1.Pod) {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}}
	}
	initExit := func(code int32) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "setup", State: corev1.ContainerState{
				Terminated: &corev1.ContainerStateTerminated{ExitCode: code}}}}
		}
	}
	tests := []struct {
		name  string
		rules []batchv1.PodFailurePolicyRule
		pod   *corev1.Pod
		want  Verdict
	}{
		{name: "no policy", pod: testPod("p", corev1.PodFailed, exited(1, t0)), want: Verdict{Counts: true}},
		{name: "no rule matches", rules: []batchv1.PodFailurePolicyRule{exitRule(batchv1.PodFailurePolicyActionFailJob, batchv1.PodFailurePolicyOnExitCodesOpIn, nil, 42)},
			pod: testPod("p", corev1.PodFailed, exited(1, t0)), want: Verdict{Counts: true}},
		{name: "FailJob on exit code", rules: []batchv1.PodFailurePolicyRule{
			exitRule(batchv1.PodFailurePolicyActionIgnore, batchv1.PodFailurePolicyOnExitCodesOpIn, nil, 3),
			exitRule(batchv1.PodFailurePolicyActionFailJob, batchv1.PodFailurePolicyOnExitCodesOpIn, nil, 42)},
			pod:  testPod("p", corev1.PodFailed, exited(42, t0)),
			want: Verdict{Action: batchv1.PodFailurePolicyActionFailJob, Counts: true, FailJob: "Container c for pod ns/p failed with exit code 42 matching FailJob rule at index 1"}},
		{name: "NotIn", rules: []batchv1.PodFailurePolicyRule{exitRule(batchv1.PodFailurePolicyActionCount, batchv1.PodFailurePolicyOnExitCodesOpNotIn, nil, 1, 2)},
			pod: testPod("p", corev1.PodFailed, exited(7, t0)), want: Verdict{Action: batchv1.PodFailurePolicyActionCount, Counts: true}},
		{name: "NotIn excluded code", rules: []batchv1.PodFailurePolicyRule{exitRule(batchv1.PodFailurePolicyActionIgnore, batchv1.PodFailurePolicyOnExitCodesOpNotIn, nil, 1, 2)},
			pod: testPod("p", corev1.PodFailed, exited(2, t0)), want: Verdict{Counts: true}},
		{name: "exit code 0 never matches", rules: []batchv1.PodFailurePolicyRule{exitRule(batchv1.PodFailurePolicyActionIgnore, batchv1.PodFailurePolicyOnExitCodesOpNotIn, nil, 1)},
			pod: testPod("p", corev1.PodFailed, exited(0, t0)), want: Verdict{Counts: true}},
		{name: "other container", rules: []batchv1.PodFailurePolicyRule{exitRule(batchv1.PodFailurePolicyActionIgnore, batchv1.PodFailurePolicyOnExitCodesOpIn, ptr("sidecar"), 1)},
			pod: testPod("p", corev1.PodFailed, exited(1, t0)), want: Verdict{Counts: true}},
		{name: "init container", rules: []batchv1.PodFailurePolicyRule{exitRule(batchv1.PodFailurePolicyActionFailIndex, batchv1.PodFailurePolicyOnExitCodesOpIn, nil, 5)},
			pod: testPod("p", corev1.PodFailed, initExit(5)), want: Verdict{Action: batchv1.PodFailurePolicyActionFailIndex, Counts: true}},
		{name: "Ignore on disruption", rules: []batchv1.PodFailurePolicyRule{condRule(batchv1.PodFailurePolicyActionIgnore, corev1.DisruptionTarget)},
			pod: testPod("p", corev1.PodFailed, disrupted), want: Verdict{Action: batchv1.PodFailurePolicyActionIgnore}},
		{name: "FailJob on condition", rules: []batchv1.PodFailurePolicyRule{condRule(batchv1.PodFailurePolicyActionFailJob, corev1.DisruptionTarget)},
			pod:  testPod("p", corev1.PodFailed, disrupted),
			want: Verdict{Action: batchv1.PodFailurePolicyActionFailJob, Counts: true, FailJob: "Pod ns/p has condition DisruptionTarget matching FailJob rule at index 0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var policy *batchv1.PodFailurePolicy
			if tt.rules != nil {
				policy = &batchv1.PodFailurePolicy{Rules: tt.rules}
			}
			if got := MatchFailurePolicy(policy, tt.pod); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestMatchSuccessPolicy(t *testing.T) {
	tests := []struct {
		name  string
		rules []batchv1.SuccessPolicyRule
		done  string
		want  string
	}{
		{name: "indexes all done", rules: []batchv1.SuccessPolicyRule{{SucceededIndexes: ptr("0,2-3")}}, done: "0-3", want: "Matched rules at index 0"},
		{name: "indexes partly done", rules: []batchv1.SuccessPolicyRule{{SucceededIndexes: ptr("0,2-3")}}, done: "0,2", want: ""},
		{name: "count of indexes", rules: []batchv1.SuccessPolicyRule{{SucceededIndexes: ptr("0,2-3")}, {SucceededIndexes: ptr("4-9"), SucceededCount: ptr[int32](2)}}, done: "5,7", want: "Matched rules at index 1"},
		{name: "count only", rules: []batchv1.SuccessPolicyRule{{SucceededCount: ptr[int32](3)}}, done: "1,4,8", want: "Matched rules at index 0"},
		{name: "count short", rules: []batchv1.SuccessPolicyRule{{SucceededCount: ptr[int32](3)}}, done: "1,4", want: ""},
		{name: "nothing done", rules: []batchv1.SuccessPolicyRule{{SucceededCount: ptr[int32](0)}}, done: "", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, ok := MatchSuccessPolicy(&batchv1.SuccessPolicy{Rules: tt.rules}, 10, ParseIndexes(tt.done, 10))
			if msg != tt.want || ok != (tt.want != "") {
				t.Errorf("got %q, %v, want %q", msg, ok, tt.want)
			}
		})
	}
}

func TestBackoff(t *testing.T) {
	succeeded := func(at time.Time) *corev1.Pod { return testPod("s", corev1.PodSucceeded, exited(0, at)) }
	failed := func(at time.Time) *corev1.Pod { return testPod("f", corev1.PodFailed, exited(1, at)) }
	tests := []struct {
		name      string
		prev      Backoff
		succeeded []*corev1.Pod
		failed    []*corev1.Pod
		now       time.Time
		want      Backoff
		wait      time.Duration
	}{
		{name: "nothing new", prev: Backoff{}, now: t0, want: Backoff{}, wait: 0},
		{name: "first failure", failed: []*corev1.Pod{failed(t0.Add(-4 * time.Second))}, now: t0,
			want: Backoff{Failures: 1, LastFailure: t0.Add(-4 * time.Second)}, wait: 6 * time.Second},
		{name: "third failure doubles twice", prev: Backoff{Failures: 2, LastFailure: t0.Add(-time.Minute)}, failed: []*corev1.Pod{failed(t0)}, now: t0,
			want: Backoff{Failures: 3, LastFailure: t0}, wait: 40 * time.Second},
		{name: "capped at 10 minutes", prev: Backoff{Failures: 9, LastFailure: t0}, now: t0.Add(time.Minute),
			want: Backoff{Failures: 9, LastFailure: t0}, wait: 9 * time.Minute},
		{name: "waited out", prev: Backoff{Failures: 1, LastFailure: t0.Add(-11 * time.Second)}, now: t0,
			want: Backoff{Failures: 1, LastFailure: t0.Add(-11 * time.Second)}, wait: 0},
		{name: "success resets", prev: Backoff{Failures: 4, LastFailure: t0.Add(-time.Second)}, succeeded: []*corev1.Pod{succeeded(t0)}, now: t0,
			want: Backoff{}, wait: 0},
		{name: "failures after the success count", prev: Backoff{Failures: 4},
			succeeded: []*corev1.Pod{succeeded(t0.Add(-10 * time.Second))},
			failed:    []*corev1.Pod{failed(t0.Add(-20 * time.Second)), failed(t0.Add(-5 * time.Second)), failed(t0.Add(-2 * time.Second))}, now: t0,
			want: Backoff{Failures: 2, LastFailure: t0.Add(-2 * time.Second)}, wait: 18 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.prev.Next(tt.succeeded, tt.failed)
			if !got.LastFailure.Equal(tt.want.LastFailure) || got.Failures != tt.want.Failures {
				t.Errorf("Next = %+v, want %+v", got, tt.want)
			}
			if w := got.Wait(tt.now); w != tt.wait {
				t.Errorf("Wait = %v, want %v", w, tt.wait)
			}
		})
	}
}

func TestFinishTime(t *testing.T) {
	notReady := func(p *corev1.Pod) {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, LastTransitionTime: metav1Time(t0.Add(-3 * time.Second))}}
	}
	running := func(p *corev1.Pod) {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}
	}
	tests := []struct {
		name string
		pod  *corev1.Pod
		want time.Time
	}{
		{name: "container finished", pod: testPod("p", corev1.PodFailed, exited(1, t0.Add(-time.Second)), notReady), want: t0.Add(-time.Second)},
		{name: "not ready since", pod: testPod("p", corev1.PodFailed, running, notReady), want: t0.Add(-3 * time.Second)},
		{name: "deletion less grace", pod: testPod("p", corev1.PodRunning, deleting, func(p *corev1.Pod) { p.DeletionGracePeriodSeconds = ptr[int64](30) }), want: t0.Add(-31 * time.Second)},
		{name: "creation", pod: testPod("p", corev1.PodFailed), want: t0.Add(-time.Minute)},
	}
	for _, tt := range tests {
		if got := FinishTime(tt.pod); !got.Equal(tt.want) {
			t.Errorf("%s: FinishTime = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestPolicyActionsCounted: a pass counts each failed pod it moves to
// the uncounted list under the action of the rule it matched, as kube's
// pod_failures_handled_by_failure_policy_total does; an ignored failure
// is counted by action too, though not as a failure.
func TestPolicyActionsCounted(t *testing.T) {
	disrupted := func(p *corev1.Pod) {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}}
	}
	job := testJob(3, 3, func(j *batchv1.Job) {
		j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
			Action:          batchv1.PodFailurePolicyActionIgnore,
			OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}},
		}}}
	})
	pods := []*corev1.Pod{
		testPod("ignored", corev1.PodFailed, disrupted),
		testPod("counted", corev1.PodFailed),
		testPod("running", corev1.PodRunning),
	}
	p := NewPass(job, pods, t0, Backoff{}, nil, true)
	p.Managed(Outcome{})
	p.Track()
	want := map[batchv1.PodFailurePolicyAction]int{batchv1.PodFailurePolicyActionIgnore: 1}
	if !maps.Equal(p.PolicyActions, want) {
		t.Errorf("PolicyActions = %v, want %v", p.PolicyActions, want)
	}
	if got := p.Job.Status.UncountedTerminatedPods.Failed; len(got) != 1 || got[0] != "counted-uid" {
		t.Errorf("uncounted failed = %v, want [counted-uid]", got)
	}
}
