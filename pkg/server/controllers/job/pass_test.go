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

// result is what one pass did, with every write succeeding.
type result struct {
	plan    Plan
	release []string
	flush   bool
	job     *batchv1.Job
	events  []string
	recheck time.Duration
}

// runPass runs a pass as the reconciler does, every create, delete and
// finalizer removal succeeding.
func runPass(job *batchv1.Job, pods []*corev1.Pod, prev Backoff, removing map[types.UID]bool, satisfied bool) result {
	p := NewPass(job, pods, t0, prev, removing, satisfied)
	plan := p.Plan()
	var o Outcome
	o.Created = int32(len(plan.Create))
	for _, d := range plan.Delete {
		o.Deleted++
		if active(d) && hasReadyCondition(d) {
			o.DeletedReady++
		}
	}
	p.Managed(o)
	tr := p.Track()
	var released []types.UID
	for _, r := range tr.Release {
		released = append(released, r.UID)
	}
	p.Counted(released)
	p.Conclude()
	var events []string
	for _, e := range p.Events {
		events = append(events, e.Reason+": "+e.Message)
	}
	return result{plan: plan, release: names(tr.Release), flush: tr.Flush, job: p.Job, events: events, recheck: p.Recheck}
}

func hasReadyCondition(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

func TestPlan(t *testing.T) {
	unscheduled := func(p *corev1.Pod) { p.Spec.NodeName = "" }
	restarts := func(n int32) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", RestartCount: n}}
		}
	}
	perIndex := func(limit int32) func(*batchv1.Job) {
		return func(j *batchv1.Job) { indexedJob(j); j.Spec.BackoffLimitPerIndex = &limit }
	}
	tests := []struct {
		name      string
		job       *batchv1.Job
		pods      []*corev1.Pod
		prev      Backoff
		unsatisfy bool
		create    []int
		delete    []string
		ending    bool
		wait      time.Duration
	}{
		{name: "new job starts parallelism pods", job: testJob(5, 2), create: []int{noIndex, noIndex}},
		{name: "no more than completions left", job: testJob(5, 2),
			pods:   []*corev1.Pod{testPod("a", corev1.PodRunning), testPod("s1", corev1.PodSucceeded), testPod("s2", corev1.PodSucceeded), testPod("s3", corev1.PodSucceeded)},
			create: []int{noIndex}},
		{name: "surplus pods, least advanced first", job: testJob(5, 2),
			pods:   []*corev1.Pod{testPod("running", corev1.PodRunning, ready), testPod("pending", corev1.PodPending, unscheduled), testPod("restarted", corev1.PodRunning, restarts(3))},
			delete: []string{"pending"}},
		{name: "surplus pods: restarts before none", job: testJob(5, 1),
			pods:   []*corev1.Pod{testPod("fresh", corev1.PodRunning), testPod("restarted", corev1.PodRunning, restarts(3))},
			delete: []string{"restarted"}},
		{name: "no completions: parallelism", job: testJob(0, 3, func(j *batchv1.Job) { j.Spec.Completions = nil }),
			create: []int{noIndex, noIndex, noIndex}},
		{name: "no completions: one success stops new pods", job: testJob(0, 3, func(j *batchv1.Job) { j.Spec.Completions = nil }),
			pods: []*corev1.Pod{testPod("a", corev1.PodRunning), testPod("s", corev1.PodSucceeded)}},
		{name: "indexed: lowest free indexes", job: testJob(4, 3, indexedJob),
			pods:   []*corev1.Pod{testPod("a", corev1.PodRunning, atIndex(1)), testPod("s", corev1.PodSucceeded, atIndex(0))},
			create: []int{2, 3}},
		{name: "indexed: duplicate index keeps the most advanced", job: testJob(3, 3, indexedJob),
			pods:   []*corev1.Pod{testPod("a", corev1.PodRunning, atIndex(0), ready), testPod("b", corev1.PodRunning, atIndex(0)), testPod("c", corev1.PodRunning, atIndex(1)), testPod("d", corev1.PodRunning, atIndex(2))},
			delete: []string{"b"}},
		{name: "indexed: index beyond completions", job: testJob(2, 2, indexedJob),
			pods:   []*corev1.Pod{testPod("a", corev1.PodRunning, atIndex(0)), testPod("b", corev1.PodRunning, atIndex(7))},
			delete: []string{"b"}},
		{name: "suspended: every active pod goes", job: testJob(5, 2, func(j *batchv1.Job) { j.Spec.Suspend = ptr(true) }),
			pods:   []*corev1.Pod{testPod("a", corev1.PodRunning, ready), testPod("b", corev1.PodPending), testPod("s", corev1.PodSucceeded)},
			delete: []string{"b", "a"}},
		{name: "expectations not met: hands off", job: testJob(5, 2), unsatisfy: true},
		{name: "being deleted: hands off", job: testJob(5, 2, func(j *batchv1.Job) { j.DeletionTimestamp = ptr(metav1.NewTime(t0)) })},
		{name: "back-off holds creation", job: testJob(5, 2),
			pods: []*corev1.Pod{testPod("a", corev1.PodRunning)}, prev: Backoff{Failures: 1, LastFailure: t0.Add(-2 * time.Second)},
			wait: 8 * time.Second},
		{name: "back-off counts this pass's failure", job: testJob(5, 2),
			pods: []*corev1.Pod{testPod("a", corev1.PodRunning), testPod("f", corev1.PodFailed, exited(1, t0.Add(-time.Second)))},
			wait: 9 * time.Second},
		{name: "ended: active pods go, finalizers kept", job: testJob(5, 2, func(j *batchv1.Job) { j.Status.Failed = 6 }),
			pods:   []*corev1.Pod{testPod("a", corev1.PodRunning), testPod("f", corev1.PodFailed)},
			delete: []string{"a"}, ending: true},
		{name: "replacement waits for a terminating pod when only failed pods are replaced",
			job:  testJob(5, 2, func(j *batchv1.Job) { j.Spec.PodReplacementPolicy = ptr(batchv1.Failed) }),
			pods: []*corev1.Pod{testPod("a", corev1.PodRunning), testPod("t", corev1.PodRunning, deleting, untracked)}},
		{name: "terminating pod replaced by default", job: testJob(5, 2),
			pods:   []*corev1.Pod{testPod("a", corev1.PodRunning), testPod("t", corev1.PodRunning, deleting, untracked)},
			create: []int{noIndex}},
		{name: "per-index back-off holds only its index", job: testJob(2, 2, perIndex(2)),
			pods:   []*corev1.Pod{testPod("f", corev1.PodFailed, atIndex(0), exited(1, t0.Add(-time.Second)))},
			create: []int{1}},
		{name: "per-index back-off: wait when no index is free", job: testJob(1, 1, perIndex(2)),
			pods: []*corev1.Pod{testPod("f", corev1.PodFailed, atIndex(0), exited(1, t0.Add(-time.Second)))},
			wait: 9 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPass(tt.job, tt.pods, t0, tt.prev, nil, !tt.unsatisfy)
			got := p.Plan()
			if !slices.Equal(got.Create, tt.create) {
				t.Errorf("Create = %v, want %v", got.Create, tt.create)
			}
			if d := names(got.Delete); !slices.Equal(d, append([]string{}, tt.delete...)) {
				t.Errorf("Delete = %v, want %v", d, tt.delete)
			}
			if got.Ending != tt.ending || got.Wait != tt.wait {
				t.Errorf("Ending %v, Wait %v; want %v, %v", got.Ending, got.Wait, tt.ending, tt.wait)
			}
		})
	}
}
