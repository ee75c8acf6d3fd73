package job

import (
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// maxPodChanges bounds the pods one pass creates or deletes, as kube's
// MaxPodCreateDeletePerSync does.
const maxPodChanges = 500

// Plan is what a pass does to its Job's pods.
type Plan struct {
	// Delete are pods to delete. Ending says the Job has ended: they
	// keep their tracking finalizer until counted as failed. Otherwise
	// (too many pods, or suspended) the finalizer goes first, so they
	// are never counted.
	Delete []*corev1.Pod
	Ending bool
	// Create are the pods to create, one per entry: its completion
	// index, noIndex in a NonIndexed Job.
	Create []int
	// Wait, when creating is held back by failures, is how long until
	// it may start.
	Wait time.Duration
	// Managed says the pods were managed (expectations met, the Job not
	// being deleted): only then does the pass set the Suspended
	// condition.
	Managed bool
}

// Plan decides the pass's change to the pods, as kube's manageJob: an
// ended Job loses its active pods; a suspended one too; otherwise the
// active pods are brought to min(parallelism, completions left) —
// surplus pods (and, Indexed, duplicates of an index or pods of no
// valid index) deleted, missing ones created once the failure back-off
// allows, never both in one pass.
func (p *Pass) Plan() Plan {
	job := p.Job
	switch {
	case p.Finished != nil:
		p.plan = Plan{Delete: p.Active, Ending: true}
		return p.plan
	case !p.Satisfied || job.DeletionTimestamp != nil:
		p.plan = Plan{}
		return p.plan
	case suspended(job):
		p.plan = Plan{Delete: forRemoval(job, p.Active, len(p.Active)), Managed: true}
		return p.plan
	}
	active := int32(len(p.Active))
	var want int32
	switch {
	case job.Spec.Completions == nil && p.succeeded > 0:
		want = active
	case job.Spec.Completions == nil:
		want = parallelismOf(job)
	default:
		want = max(0, min(*job.Spec.Completions-p.succeeded, parallelismOf(job)))
	}
	if rm := forRemoval(job, p.Active, int(max(active-want, 0))); len(rm) > 0 {
		p.plan = Plan{Delete: rm[:min(len(rm), maxPodChanges)], Managed: true}
		return p.plan
	}
	var replacing int32
	if onlyReplaceFailed(job) {
		replacing = p.terminating
	}
	diff := want - replacing - active
	if diff <= 0 {
		p.plan = Plan{Managed: true}
		return p.plan
	}
	perIndex := indexed(job) && job.Spec.BackoffLimitPerIndex != nil
	if !perIndex {
		if wait := p.Backoff.Wait(p.Now); wait > 0 {
			p.plan = Plan{Wait: wait, Managed: true}
			return p.plan
		}
	}
	diff = min(diff, maxPodChanges)
	if !indexed(job) {
		p.plan = Plan{Create: make([]int, diff), Managed: true}
		for i := range p.plan.Create {
			p.plan.Create[i] = noIndex
		}
		return p.plan
	}
	create := firstPending(p.takenIndexes(), int(diff), int(completionsOf(job)))
	if perIndex {
		var wait time.Duration
		create, wait = p.readyIndexes(create)
		if len(create) == 0 && wait > 0 {
			p.plan = Plan{Wait: wait, Managed: true}
			return p.plan
		}
	}
	p.plan = Plan{Create: create, Managed: true}
	return p.plan
}

// takenIndexes are the indexes not to create a pod for: succeeded,
// held by an active pod, failed for good, or, where only failed pods
// are replaced, held by a terminating one.
func (p *Pass) takenIndexes() Indexes {
	taken := p.succeededIx.With(indexesOf(p.Active)...)
	if onlyReplaceFailed(p.Job) {
		var term []*corev1.Pod
		for _, pod := range p.Pods {
			if terminating(pod) {
				term = append(term, pod)
			}
		}
		taken = taken.With(indexesOf(term)...)
	}
	if p.failedIx != nil {
		taken = taken.Union(*p.failedIx)
	}
	return taken
}

// readyIndexes keeps the indexes whose own back-off has passed; if none
// has, it returns the shortest wait.
func (p *Pass) readyIndexes(ixs []int) ([]int, time.Duration) {
	var now []int
	var wait time.Duration
	for _, ix := range ixs {
		w := time.Duration(0)
		if last := p.delayed[ix]; last != nil {
			w = backoffWait(indexFailures(last)+indexIgnoredFailures(last)+1, FinishTime(last), p.Now)
		}
		if w == 0 {
			now = append(now, ix)
		} else if wait == 0 || w < wait {
			wait = w
		}
	}
	if len(now) > 0 {
		return now, 0
	}
	return nil, wait
}

// Replaced is the failed pod a new pod of index ix replaces, if any.
func (p *Pass) Replaced(ix int) *corev1.Pod { return p.delayed[ix] }

// Outcome is what became of a Plan: pods deleted (and how many of them
// were ready) and created.
type Outcome struct {
	Deleted, DeletedReady, Created int32
}

// Managed takes in the outcome of the plan, and decides what that
// makes of the Job: an end stands only once every active pod is
// deleted and the cache shows all earlier writes; a Job that reached
// its completions with no pod left active is heading for Complete;
// otherwise a managed pass sets the Suspended condition (True when
// suspended; False, with a new start time, when resumed).
func (p *Pass) Managed(o Outcome) {
	job := p.Job
	p.active -= o.Deleted
	p.terminating += o.Deleted
	p.ready -= o.DeletedReady
	suspendChanged := false
	if p.plan.Ending {
		if o.Deleted != int32(len(p.Active)) || !p.Satisfied {
			// Pods or finalizers may remain that the cache does not
			// show yet.
			p.Finished = nil
		}
	} else {
		p.active += o.Created
		if p.plan.Wait > 0 {
			// kube's manageJob reports no active pods while the
			// back-off holds creation back, and its status says so.
			p.active = 0
		}
		complete := p.succeeded > 0 && p.active == 0
		if job.Spec.Completions != nil {
			complete = p.succeeded >= *job.Spec.Completions && p.active == 0
		}
		switch {
		case complete:
			p.Finished = p.newCondition(batchv1.JobSuccessCriteriaMet, batchv1.JobReasonCompletionsReached, "Reached expected number of succeeded pods")
		case p.plan.Managed && suspended(job):
			if p.setCondition(batchv1.JobSuspended, corev1.ConditionTrue, "JobSuspended", "Job suspended") {
				suspendChanged = true
				p.event(corev1.EventTypeNormal, "Suspended", "Job suspended")
			}
		case p.plan.Managed:
			if p.setCondition(batchv1.JobSuspended, corev1.ConditionFalse, "JobResumed", "Job resumed") {
				suspendChanged = true
				p.event(corev1.EventTypeNormal, "Resumed", "Job resumed")
				// The active deadline counts time resumed only.
				t := metav1.NewTime(p.Now)
				job.Status.StartTime = &t
			}
		}
	}
	st := &job.Status
	p.dirty = suspendChanged || p.active != p.original.Active ||
		!equality.Semantic.DeepEqual(&p.ready, p.original.Ready) || !equality.Semantic.DeepEqual(&p.terminating, p.original.Terminating)
	st.Active = p.active
	st.Ready = &p.ready
	st.Terminating = &p.terminating
}
