package job

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

func TestMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := newMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newMetrics(reg); err != nil {
		t.Fatalf("a second registration: %v", err)
	}
	// A pass that completes a Job of 2: one pod counted now.
	job := testJob(2, 2, func(j *batchv1.Job) { j.Status.Succeeded = 1 })
	r := runPass(job, []*corev1.Pod{testPod("s", corev1.PodSucceeded)}, Backoff{}, nil, true)
	m.counted(r.job, job.Status, nil, condition(r.job.Status.Conditions, batchv1.JobComplete))
	m.synced(r.job, r.plan.action(), nil, 10*time.Millisecond)
	failed := testJob(1, 1, indexedJob, func(j *batchv1.Job) { j.Status.Failed = 2 })
	m.counted(failed, batchv1.JobStatus{Failed: 1}, map[batchv1.PodFailurePolicyAction]int{batchv1.PodFailurePolicyActionIgnore: 2},
		&batchv1.JobCondition{Type: batchv1.JobFailed, Reason: batchv1.JobReasonBackoffLimitExceeded})
	// Indexes 0-2 and 4 done, 1 of them before: three more.
	indexes := testJob(5, 5, indexedJob, func(j *batchv1.Job) { j.Status.CompletedIndexes = "0-2,4" })
	m.counted(indexes, batchv1.JobStatus{CompletedIndexes: "1"}, nil, nil)
	// Two pods created and one refused, replacing a failed one.
	m.created(failed, 2, 1)
	m.created(job, 1, 0)
	// What the informers' events count: a Job another controller
	// manages, and a finished pod gaining then losing its finalizer.
	jobsSeen, podsSeen := m.watched()
	other := "example.com/queue"
	jobsSeen.Create(testJob(1, 1, func(j *batchv1.Job) { j.Spec.ManagedBy = &other }))
	jobsSeen.Create(testJob(1, 1))
	done := testPod("done", corev1.PodSucceeded)
	released := done.DeepCopy()
	released.Finalizers = nil
	podsSeen.Create(done)
	podsSeen.Update(done, released)
	podsSeen.Delete(released)
	tests := []struct {
		c      *prometheus.CounterVec
		labels []string
		want   float64
	}{
		{m.podsFinished, []string{"NonIndexed", "succeeded"}, 1},
		{m.podsFinished, []string{"Indexed", "failed"}, 1},
		{m.finished, []string{"NonIndexed", "succeeded", "CompletionsReached"}, 1},
		{m.finished, []string{"Indexed", "failed", "BackoffLimitExceeded"}, 1},
		{m.syncs, []string{"NonIndexed", "success", "tracking"}, 1},
		{m.indexesFinished, []string{"succeeded", "global"}, 3},
		{m.policyActions, []string{"Ignore"}, 2},
		{m.podsCreated, []string{"recreate_terminating_or_failed", "succeeded"}, 2},
		{m.podsCreated, []string{"recreate_terminating_or_failed", "failed"}, 1},
		{m.podsCreated, []string{"new", "succeeded"}, 1},
		{m.external, []string{other}, 1},
		{m.trackedFinished, []string{"add"}, 1},
		{m.trackedFinished, []string{"delete"}, 1},
	}
	for _, tt := range tests {
		if got := testutil.ToFloat64(tt.c.WithLabelValues(tt.labels...)); got != tt.want {
			t.Errorf("%v = %v, want %v", tt.labels, got, tt.want)
		}
	}
	if n := testutil.CollectAndCount(reg, "job_controller_job_sync_duration_seconds"); n != 1 {
		t.Errorf("%d sync duration series, want 1", n)
	}
}

func TestPlanAction(t *testing.T) {
	tests := []struct {
		plan Plan
		want string
	}{
		{Plan{}, actionReconciling},
		{Plan{Ending: true, Delete: []*corev1.Pod{testPod("a", corev1.PodRunning)}}, actionReconciling},
		{Plan{Managed: true}, actionTracking},
		{Plan{Managed: true, Create: []int{noIndex}}, actionCreated},
		{Plan{Managed: true, Wait: time.Second}, actionCreated},
		{Plan{Managed: true, Delete: []*corev1.Pod{testPod("a", corev1.PodRunning)}}, actionDeleted},
	}
	for _, tt := range tests {
		if got := tt.plan.action(); got != tt.want {
			t.Errorf("%+v: action %q, want %q", tt.plan, got, tt.want)
		}
	}
}
