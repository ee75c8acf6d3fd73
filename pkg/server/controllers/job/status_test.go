package job

import (
	"slices"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// wantStatus is what a pass leaves in a Job's status.
type wantStatus struct {
	active, succeeded, failed, terminating, ready int32
	uncounted                                     int
	completedIndexes                              string
	failedIndexes                                 *string
	conditions                                    string
	completed                                     bool // completionTime set
}

func checkStatus(t *testing.T, st batchv1.JobStatus, w wantStatus) {
	t.Helper()
	unc := 0
	if u := st.UncountedTerminatedPods; u != nil {
		unc = len(u.Succeeded) + len(u.Failed)
	}
	if st.Active != w.active || st.Succeeded != w.succeeded || st.Failed != w.failed || *st.Terminating != w.terminating || *st.Ready != w.ready || unc != w.uncounted {
		t.Errorf("active %d succeeded %d failed %d terminating %d ready %d uncounted %d; want %d %d %d %d %d %d",
			st.Active, st.Succeeded, st.Failed, *st.Terminating, *st.Ready, unc, w.active, w.succeeded, w.failed, w.terminating, w.ready, w.uncounted)
	}
	if st.CompletedIndexes != w.completedIndexes {
		t.Errorf("completedIndexes %q, want %q", st.CompletedIndexes, w.completedIndexes)
	}
	if (st.FailedIndexes == nil) != (w.failedIndexes == nil) || (st.FailedIndexes != nil && *st.FailedIndexes != *w.failedIndexes) {
		t.Errorf("failedIndexes %v, want %v", st.FailedIndexes, w.failedIndexes)
	}
	if got := conditionTypes(st.Conditions); got != w.conditions {
		t.Errorf("conditions %s, want %s", got, w.conditions)
	}
	if (st.CompletionTime != nil) != w.completed {
		t.Errorf("completionTime %v, want set %v", st.CompletionTime, w.completed)
	}
}

func TestPassStatus(t *testing.T) {
	withStatus := func(f func(*batchv1.JobStatus)) func(*batchv1.Job) { return func(j *batchv1.Job) { f(&j.Status) } }
	withCondition := func(ct batchv1.JobConditionType, status corev1.ConditionStatus, reason string) func(*batchv1.Job) {
		return withStatus(func(st *batchv1.JobStatus) {
			st.Conditions = append(st.Conditions, batchv1.JobCondition{Type: ct, Status: status, Reason: reason, Message: "earlier",
				LastTransitionTime: metav1.NewTime(t0.Add(-time.Hour))})
		})
	}
	policy := func(rules ...batchv1.PodFailurePolicyRule) func(*batchv1.Job) {
		return func(j *batchv1.Job) { j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: rules} }
	}
	onExit := func(action batchv1.PodFailurePolicyAction, code int32) batchv1.PodFailurePolicyRule {
		return batchv1.PodFailurePolicyRule{Action: action, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{code}}}
	}
	tests := []struct {
		name     string
		job      *batchv1.Job
		pods     []*corev1.Pod
		removing []types.UID
		release  []string
		want     wantStatus
		events   []string
		recheck  time.Duration
	}{
		{name: "finished pods counted and released, replacements created", job: testJob(5, 2),
			pods:    []*corev1.Pod{testPod("s1", corev1.PodSucceeded), testPod("s2", corev1.PodSucceeded), testPod("a", corev1.PodRunning, untracked, deleting)},
			release: []string{"s1", "s2"},
			want:    wantStatus{active: 2, succeeded: 2, terminating: 1}},
		{name: "completions reached: SuccessCriteriaMet then Complete",
			job:     testJob(2, 2, withStatus(func(st *batchv1.JobStatus) { st.Succeeded = 1 })),
			pods:    []*corev1.Pod{testPod("s", corev1.PodSucceeded), testPod("old", corev1.PodSucceeded, untracked)},
			release: []string{"s"},
			want: wantStatus{succeeded: 2, completed: true,
				conditions: "SuccessCriteriaMet=True/CompletionsReached;Complete=True/CompletionsReached;"},
			events: []string{"Completed: Job completed"}},
		{name: "backoff limit exceeded: FailureTarget while a pod terminates",
			job:     testJob(5, 2, func(j *batchv1.Job) { j.Spec.BackoffLimit = ptr[int32](1); j.Status.Failed = 1 }),
			pods:    []*corev1.Pod{testPod("f", corev1.PodFailed, exited(1, t0)), testPod("a", corev1.PodRunning, ready)},
			release: []string{"f", "a"},
			want:    wantStatus{failed: 3, terminating: 1, conditions: "FailureTarget=True/BackoffLimitExceeded;"}},
		{name: "FailureTarget becomes Failed once nothing terminates",
			job:    testJob(5, 2, withCondition(batchv1.JobFailureTarget, corev1.ConditionTrue, batchv1.JobReasonBackoffLimitExceeded), withStatus(func(st *batchv1.JobStatus) { st.Failed = 3 })),
			pods:   []*corev1.Pod{testPod("f", corev1.PodFailed, untracked)},
			want:   wantStatus{failed: 3, conditions: "FailureTarget=True/BackoffLimitExceeded;Failed=True/BackoffLimitExceeded;"},
			events: []string{"BackoffLimitExceeded: earlier"}},
		{name: "OnFailure restarts reach the backoff limit",
			job: testJob(1, 1, func(j *batchv1.Job) {
				j.Spec.BackoffLimit = ptr[int32](2)
				j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
			}),
			pods: []*corev1.Pod{testPod("a", corev1.PodRunning, deleting, func(p *corev1.Pod) {
				p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", RestartCount: 2}}
			})},
			release: []string{"a"},
			want:    wantStatus{failed: 1, terminating: 1, conditions: "FailureTarget=True/BackoffLimitExceeded;"}},
		{name: "active deadline passed",
			job:     testJob(1, 1, func(j *batchv1.Job) { j.Spec.ActiveDeadlineSeconds = ptr[int64](30) }),
			pods:    []*corev1.Pod{testPod("a", corev1.PodRunning)},
			release: []string{"a"},
			want:    wantStatus{failed: 1, terminating: 1, conditions: "FailureTarget=True/DeadlineExceeded;"}},
		{name: "active deadline ahead: recheck then",
			job:     testJob(1, 1, func(j *batchv1.Job) { j.Spec.ActiveDeadlineSeconds = ptr[int64](100) }),
			pods:    []*corev1.Pod{testPod("a", corev1.PodRunning)},
			want:    wantStatus{active: 1},
			recheck: 40 * time.Second},
		{name: "FailJob rule",
			job:     testJob(3, 1, policy(onExit(batchv1.PodFailurePolicyActionFailJob, 42))),
			pods:    []*corev1.Pod{testPod("f", corev1.PodFailed, exited(42, t0))},
			release: []string{"f"},
			want:    wantStatus{failed: 1, conditions: "FailureTarget=True/PodFailurePolicy;Failed=True/PodFailurePolicy;"},
			events:  []string{"PodFailurePolicy: Container c for pod ns/f failed with exit code 42 matching FailJob rule at index 0"}},
		// The back-off counts ignored failures too, as kube's does, and
		// a pass held back by it reports no pod active.
		{name: "Ignore rule: released, not counted, replaced after the back-off",
			job:     testJob(3, 1, policy(onExit(batchv1.PodFailurePolicyActionIgnore, 3))),
			pods:    []*corev1.Pod{testPod("f", corev1.PodFailed, exited(3, t0))},
			release: []string{"f"},
			want:    wantStatus{}},
		{name: "pods being released are not counted twice",
			job:      testJob(5, 1, withStatus(func(st *batchv1.JobStatus) { st.Succeeded = 1 })),
			pods:     []*corev1.Pod{testPod("s", corev1.PodSucceeded), testPod("a", corev1.PodRunning)},
			removing: []types.UID{"s-uid"},
			want:     wantStatus{active: 1, succeeded: 1}},
		{name: "uncounted pods without a finalizer move to the counters",
			job: testJob(5, 1, withStatus(func(st *batchv1.JobStatus) {
				st.UncountedTerminatedPods = &batchv1.UncountedTerminatedPods{Succeeded: []types.UID{"s-uid"}, Failed: []types.UID{"f-uid"}}
			})),
			pods: []*corev1.Pod{testPod("s", corev1.PodSucceeded, untracked), testPod("f", corev1.PodFailed, untracked), testPod("a", corev1.PodRunning)},
			want: wantStatus{active: 1, succeeded: 1, failed: 1}},
		{name: "indexed: completed indexes",
			job:     testJob(3, 3, indexedJob),
			pods:    []*corev1.Pod{testPod("s0", corev1.PodSucceeded, atIndex(0)), testPod("s1", corev1.PodSucceeded, atIndex(1)), testPod("a", corev1.PodRunning, atIndex(2), ready)},
			release: []string{"s0", "s1"},
			want:    wantStatus{active: 1, ready: 1, succeeded: 2, completedIndexes: "0,1"}},
		{name: "indexed: complete",
			job:     testJob(3, 3, indexedJob, withStatus(func(st *batchv1.JobStatus) { st.CompletedIndexes = "0,1"; st.Succeeded = 2 })),
			pods:    []*corev1.Pod{testPod("s2", corev1.PodSucceeded, atIndex(2))},
			release: []string{"s2"},
			want: wantStatus{succeeded: 3, completedIndexes: "0-2", completed: true,
				conditions: "SuccessCriteriaMet=True/CompletionsReached;Complete=True/CompletionsReached;"},
			events: []string{"Completed: Job completed"}},
		{name: "per index: a failed index fails the job once the rest succeeded",
			job:     testJob(2, 2, indexedJob, func(j *batchv1.Job) { j.Spec.BackoffLimitPerIndex = ptr[int32](0) }),
			pods:    []*corev1.Pod{testPod("f0", corev1.PodFailed, atIndex(0)), testPod("s1", corev1.PodSucceeded, atIndex(1))},
			release: []string{"f0", "s1"},
			want: wantStatus{succeeded: 1, failed: 1, completedIndexes: "1", failedIndexes: ptr("0"),
				conditions: "FailureTarget=True/FailedIndexes;Failed=True/FailedIndexes;"},
			events: []string{"FailedIndexes: Job has failed indexes"}},
		{name: "per index: the failed pod waits for its replacement",
			job:     testJob(2, 2, indexedJob, func(j *batchv1.Job) { j.Spec.BackoffLimitPerIndex = ptr[int32](3) }),
			pods:    []*corev1.Pod{testPod("f0", corev1.PodFailed, atIndex(0), exited(1, t0.Add(-time.Hour))), testPod("a1", corev1.PodRunning, atIndex(1))},
			release: nil,
			want:    wantStatus{active: 2, failedIndexes: ptr("")}},
		{name: "success policy met: active pods deleted, Complete deferred",
			job: testJob(4, 4, indexedJob, func(j *batchv1.Job) {
				j.Spec.SuccessPolicy = &batchv1.SuccessPolicy{Rules: []batchv1.SuccessPolicyRule{{SucceededCount: ptr[int32](2)}}}
			}),
			pods:    []*corev1.Pod{testPod("s0", corev1.PodSucceeded, atIndex(0)), testPod("s1", corev1.PodSucceeded, atIndex(1)), testPod("a2", corev1.PodRunning, atIndex(2))},
			release: []string{"s0", "s1", "a2"},
			want:    wantStatus{succeeded: 2, terminating: 1, completedIndexes: "0,1", conditions: "SuccessCriteriaMet=True/SuccessPolicy;"}},
		{name: "suspend: pods deleted, Suspended condition",
			job:    testJob(5, 2, func(j *batchv1.Job) { j.Spec.Suspend = ptr(true) }),
			pods:   []*corev1.Pod{testPod("a", corev1.PodRunning, ready), testPod("b", corev1.PodRunning)},
			want:   wantStatus{terminating: 2, conditions: "Suspended=True/JobSuspended;"},
			events: []string{"Suspended: Job suspended"}},
		{name: "resume: Suspended False, pods created",
			job:    testJob(5, 2, withCondition(batchv1.JobSuspended, corev1.ConditionTrue, "JobSuspended")),
			want:   wantStatus{active: 2, conditions: "Suspended=False/JobResumed;"},
			events: []string{"Resumed: Job resumed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			removing := map[types.UID]bool{}
			for _, u := range tt.removing {
				removing[u] = true
			}
			r := runPass(tt.job, tt.pods, Backoff{}, removing, true)
			if !slices.Equal(r.release, append([]string{}, tt.release...)) {
				t.Errorf("released %v, want %v", r.release, tt.release)
			}
			checkStatus(t, r.job.Status, tt.want)
			if !slices.Equal(r.events, tt.events) {
				t.Errorf("events %q, want %q", r.events, tt.events)
			}
			if r.recheck != tt.recheck {
				t.Errorf("recheck %v, want %v", r.recheck, tt.recheck)
			}
		})
	}
}
