package job

import (
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/podcondition"
)

// Event is an Event a pass records on its Job.
type Event struct {
	Type, Reason, Message string
}

// Pass is one sync of a Job: what its pods say, and the decisions taken
// from that, the Job and the time. NewPass assesses; Plan says what to
// do to the pods; Managed takes in what was done; Track says which
// finished pods to count and release; Counted and Conclude finish the
// status. The reconciler does the writes in between.
type Pass struct {
	// Job is a copy of the Job whose status the pass rewrites.
	Job *batchv1.Job
	// Pods are the pods the Job owns, in every phase.
	Pods []*corev1.Pod
	Now  time.Time
	// Removing are pods whose tracking finalizer an earlier pass removed
	// and the cache still shows: they are counted already.
	Removing map[types.UID]bool
	// Satisfied: the cache shows every create and delete of earlier
	// passes, so the pods can be managed.
	Satisfied bool

	// Active are the pods neither finished nor being deleted.
	Active []*corev1.Pod
	// The counts the status will show.
	active, ready, terminating int32
	succeeded, failed          int32
	// Backoff is the failure record once this pass's newly finished pods
	// are in it; the reconciler keeps it once the status holds them.
	Backoff Backoff
	// Finished is the condition the Job is heading for (FailureTarget,
	// SuccessCriteriaMet, or the Failed or Complete they lead to); nil
	// while it runs.
	Finished *batchv1.JobCondition
	// Recheck is when the Job's active deadline falls, if it has one
	// ahead.
	Recheck time.Duration
	// Events are the Events to record, in order.
	Events []Event
	// PolicyActions counts the failed pods this pass counted by the
	// action of the podFailurePolicy rule they matched.
	PolicyActions map[batchv1.PodFailurePolicyAction]int

	original                     batchv1.JobStatus
	uncountedSucceeded           map[types.UID]bool
	uncountedFailed              map[types.UID]bool
	prevSucceededIx, succeededIx Indexes
	failedIx                     *Indexes
	delayed                      map[int]*corev1.Pod // per index, a failed pod kept until its replacement exists
	withFinalizer                map[types.UID]bool  // pods tracked and not being released
	plan                         Plan
	dirty                        bool // the status changed in ways that need a write
	tooManyUncounted             bool // Track stopped at maxUncounted
}

// NewPass assesses job given its pods at now. prev is the Job's failure
// record from earlier passes.
func NewPass(job *batchv1.Job, pods []*corev1.Pod, now time.Time, prev Backoff, removing map[types.UID]bool, satisfied bool) *Pass {
	p := &Pass{Job: job.DeepCopy(), Pods: pods, Now: now, Removing: removing, Satisfied: satisfied, original: *job.Status.DeepCopy()}
	st := &p.Job.Status
	if st.UncountedTerminatedPods == nil {
		st.UncountedTerminatedPods = &batchv1.UncountedTerminatedPods{}
	}
	p.uncountedSucceeded = uidSet(st.UncountedTerminatedPods.Succeeded)
	p.uncountedFailed = uidSet(st.UncountedTerminatedPods.Failed)
	for _, pod := range pods {
		switch {
		case active(pod):
			p.Active = append(p.Active, pod)
			if podcondition.True(pod, corev1.PodReady) {
				p.ready++
			}
		case terminating(pod):
			p.terminating++
		}
	}
	p.active = int32(len(p.Active))

	newSucceeded := p.newlyFinished(p.uncountedSucceeded, func(pod *corev1.Pod) bool { return pod.Status.Phase == corev1.PodSucceeded })
	newFailed := p.newlyFinished(p.uncountedFailed, p.podFailed)
	p.succeeded = st.Succeeded + int32(len(newSucceeded)+len(p.uncountedSucceeded))
	p.failed = st.Failed + int32(len(p.uncountedFailed))
	for _, pod := range newFailed {
		if MatchFailurePolicy(p.Job.Spec.PodFailurePolicy, pod).Counts {
			p.failed++
		}
	}
	if st.StartTime == nil && !suspended(p.Job) {
		t := metav1.NewTime(now)
		st.StartTime = &t
	}
	p.Backoff = prev.Next(newSucceeded, newFailed)
	p.assessEnd()
	return p
}

// assessEnd decides whether the Job has reached its end, in kube's
// order: an end found by an earlier pass, the pod failure policy, the
// backoff limit, the active deadline, the failed indexes, the success
// policy. Reaching its completions is decided once pods are managed.
func (p *Pass) assessEnd() {
	job := p.Job
	p.Finished = condition(job.Status.Conditions, batchv1.JobSuccessCriteriaMet)
	if p.Finished == nil {
		if ft := condition(job.Status.Conditions, batchv1.JobFailureTarget); ft != nil {
			p.Finished = p.newCondition(batchv1.JobFailed, ft.Reason, ft.Message)
		} else if msg, ok := p.failJobMessage(); ok {
			p.Finished = p.newCondition(batchv1.JobFailureTarget, batchv1.JobReasonPodFailurePolicy, msg)
		}
	}
	if p.Finished == nil {
		switch {
		case p.failed > backoffLimit(job) || p.pastBackoffLimitOnFailure():
			p.Finished = p.newCondition(batchv1.JobFailureTarget, batchv1.JobReasonBackoffLimitExceeded, "Job has reached the specified backoff limit")
		case p.pastDeadline():
			p.Finished = p.newCondition(batchv1.JobFailureTarget, batchv1.JobReasonDeadlineExceeded, "Job was active longer than specified deadline")
		case job.Spec.ActiveDeadlineSeconds != nil && !suspended(job):
			p.Recheck = time.Duration(*job.Spec.ActiveDeadlineSeconds)*time.Second - p.Now.Sub(job.Status.StartTime.Time)
		}
	}
	if !indexed(job) {
		return
	}
	completions := int(completionsOf(job))
	p.prevSucceededIx = ParseIndexes(job.Status.CompletedIndexes, completions)
	var done []int
	for _, pod := range p.Pods {
		if ix := CompletionIndex(pod); pod.Status.Phase == corev1.PodSucceeded && ix != noIndex && ix < completions && hasTrackingFinalizer(pod) {
			done = append(done, ix)
		}
	}
	p.succeededIx = p.prevSucceededIx.With(done...)
	p.succeeded = int32(p.succeededIx.Len())
	if job.Spec.BackoffLimitPerIndex != nil {
		p.failedIx = p.failedIndexes()
		if p.Finished == nil {
			switch n := p.failedIx.Len(); {
			case job.Spec.MaxFailedIndexes != nil && n > int(*job.Spec.MaxFailedIndexes):
				p.Finished = p.newCondition(batchv1.JobFailureTarget, batchv1.JobReasonMaxFailedIndexesExceeded, "Job has exceeded the specified maximal number of failed indexes")
			case n > 0 && n+p.succeededIx.Len() >= completions:
				p.Finished = p.newCondition(batchv1.JobFailureTarget, batchv1.JobReasonFailedIndexes, "Job has failed indexes")
			}
		}
		p.delayed = p.delayedPerIndex()
	}
	if p.Finished == nil {
		if msg, ok := MatchSuccessPolicy(job.Spec.SuccessPolicy, completions, p.succeededIx); ok {
			p.Finished = p.newCondition(batchv1.JobSuccessCriteriaMet, batchv1.JobReasonSuccessPolicy, msg)
		}
	}
}

// newlyFinished are the pods that filter accepts and no status counts
// yet: they still carry the tracking finalizer, are not in uncounted
// and not being released, and in an Indexed Job have a valid index.
func (p *Pass) newlyFinished(uncounted map[types.UID]bool, filter func(*corev1.Pod) bool) []*corev1.Pod {
	var out []*corev1.Pod
	for _, pod := range p.Pods {
		if !hasTrackingFinalizer(pod) || uncounted[pod.UID] || p.Removing[pod.UID] {
			continue
		}
		if indexed(p.Job) {
			if ix := CompletionIndex(pod); ix == noIndex || ix >= int(completionsOf(p.Job)) {
				continue
			}
		}
		if filter(pod) {
			out = append(out, pod)
		}
	}
	return out
}

// podFailed reports whether pod counts as failed: its phase says so, or,
// unless only failed pods are replaced, it is being deleted before it
// succeeded (an orphaned pod may never reach Failed).
func (p *Pass) podFailed(pod *corev1.Pod) bool {
	if pod.Status.Phase == corev1.PodFailed {
		return true
	}
	if onlyReplaceFailed(p.Job) {
		return false
	}
	return pod.DeletionTimestamp != nil && pod.Status.Phase != corev1.PodSucceeded
}

func (p *Pass) failJobMessage() (string, bool) {
	if p.Job.Spec.PodFailurePolicy == nil {
		return "", false
	}
	for _, pod := range p.Pods {
		if p.podFailed(pod) {
			if v := MatchFailurePolicy(p.Job.Spec.PodFailurePolicy, pod); v.FailJob != "" {
				return v.FailJob, true
			}
		}
	}
	return "", false
}

// pastBackoffLimitOnFailure: with restartPolicy OnFailure, failures show
// as container restarts of pods still running, and their sum reaching
// the backoff limit (any restart, for a limit of 0) fails the Job.
func (p *Pass) pastBackoffLimitOnFailure() bool {
	if p.Job.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyOnFailure {
		return false
	}
	var n int32
	for _, pod := range p.Pods {
		if pod.Status.Phase != corev1.PodRunning && pod.Status.Phase != corev1.PodPending {
			continue
		}
		for _, s := range pod.Status.InitContainerStatuses {
			n += s.RestartCount
		}
		for _, s := range pod.Status.ContainerStatuses {
			n += s.RestartCount
		}
	}
	if limit := backoffLimit(p.Job); limit > 0 {
		return n >= limit
	}
	return n > 0
}

func (p *Pass) pastDeadline() bool {
	job := p.Job
	if job.Spec.ActiveDeadlineSeconds == nil || job.Status.StartTime == nil || suspended(job) {
		return false
	}
	return p.Now.Sub(job.Status.StartTime.Time) >= time.Duration(*job.Spec.ActiveDeadlineSeconds)*time.Second
}

func (p *Pass) newCondition(t batchv1.JobConditionType, reason, message string) *batchv1.JobCondition {
	return &batchv1.JobCondition{
		Type: t, Status: corev1.ConditionTrue, Reason: reason, Message: message,
		LastProbeTime: metav1.NewTime(p.Now), LastTransitionTime: metav1.NewTime(p.Now),
	}
}

// setCondition makes the Job's condition of type t say status, reason
// and message, adding it unless it would be a new False one; it reports
// a change.
func (p *Pass) setCondition(t batchv1.JobConditionType, status corev1.ConditionStatus, reason, message string) bool {
	st := &p.Job.Status
	for i := range st.Conditions {
		c := &st.Conditions[i]
		if c.Type != t {
			continue
		}
		if c.Status == status && c.Reason == reason && c.Message == message {
			return false
		}
		*c = *p.newCondition(t, reason, message)
		c.Status = status
		return true
	}
	if status == corev1.ConditionFalse {
		return false
	}
	nc := p.newCondition(t, reason, message)
	nc.Status = status
	st.Conditions = append(st.Conditions, *nc)
	return true
}

func (p *Pass) event(typ, reason, format string, args ...any) {
	p.Events = append(p.Events, Event{Type: typ, Reason: reason, Message: fmt.Sprintf(format, args...)})
}
