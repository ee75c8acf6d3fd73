package job

import (
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
)

// maxUncounted bounds status.uncountedTerminatedPods (kube's
// MaxUncountedPods), keeping the status small and one big Job's pass
// short; the rest waits for the next pass.
const maxUncounted = 500

// Tracking is what a pass does about finished pods: count them in the
// status, then release them by removing their tracking finalizer.
type Tracking struct {
	// Flush says the status must be written before any finalizer goes,
	// so a released pod is never lost from the counts.
	Flush bool
	// Release are the pods whose tracking finalizer to remove.
	Release []*corev1.Pod
}

// Track counts finished pods as kube's finalizer-based tracking does.
// A pod that finished (or, once the Job has ended, any pod) goes into
// status.uncountedTerminatedPods (an Indexed Job's succeeded pods into
// completedIndexes instead) and is released; once its finalizer is gone
// (Counted) it moves to succeeded or failed. A pod whose failure the
// policy ignores is released uncounted; under backoffLimitPerIndex the
// latest failed pod of an index is kept until its replacement exists.
// An end found in this pass is first written as its interim condition
// (FailureTarget, SuccessCriteriaMet), and Finished becomes the final
// one (Failed, Complete) for Conclude.
func (p *Pass) Track() Tracking {
	job := p.Job
	st := &job.Status
	unc := st.UncountedTerminatedPods
	isIndexed := indexed(job)
	completions := int(completionsOf(job))
	pods := slices.Clone(p.Pods)
	if isIndexed {
		slices.SortStableFunc(pods, func(a, b *corev1.Pod) int { return CompletionIndex(a) - CompletionIndex(b) })
	}
	p.withFinalizer = map[types.UID]bool{}
	for _, pod := range pods {
		if hasTrackingFinalizer(pod) && !p.Removing[pod.UID] {
			p.withFinalizer[pod.UID] = true
		}
	}
	flush := p.dirty
	if p.countReleased() {
		flush = true
	}
	var release []*corev1.Pod
	var newIndexes []int
	for _, pod := range pods {
		if !hasTrackingFinalizer(pod) || p.Removing[pod.UID] {
			continue
		}
		failed := p.podFailed(pod)
		if !p.releasable(pod, failed) {
			continue
		}
		release = append(release, pod)
		ix := CompletionIndex(pod)
		validIx := ix != noIndex && ix < completions
		switch {
		case pod.Status.Phase == corev1.PodSucceeded && !p.uncountedFailed[pod.UID]:
			if isIndexed {
				if validIx && !p.prevSucceededIx.Has(ix) {
					newIndexes = append(newIndexes, ix)
					flush = true
				}
			} else if !p.uncountedSucceeded[pod.UID] {
				unc.Succeeded = append(unc.Succeeded, pod.UID)
				flush = true
			}
		case failed || (p.Finished != nil && p.Finished.Type != batchv1.JobSuccessCriteriaMet):
			// Once the Job has failed, every pod left counts as failed.
			if p.uncountedFailed[pod.UID] || isIndexed && !validIx {
				break
			}
			v := MatchFailurePolicy(job.Spec.PodFailurePolicy, pod)
			if v.Action != "" {
				if p.PolicyActions == nil {
					p.PolicyActions = map[batchv1.PodFailurePolicyAction]int{}
				}
				p.PolicyActions[v.Action]++
			}
			if v.Counts {
				unc.Failed = append(unc.Failed, pod.UID)
				flush = true
			}
		}
		if len(newIndexes)+len(unc.Succeeded)+len(unc.Failed) >= maxUncounted {
			p.tooManyUncounted = true
			break
		}
	}
	if isIndexed {
		p.succeededIx = p.succeededIx.With(newIndexes...)
		if s := p.succeededIx.String(); s != st.CompletedIndexes {
			st.CompletedIndexes = s
			flush = true
		}
		st.Succeeded = int32(p.succeededIx.Len())
		var failed *string
		if p.failedIx != nil {
			s := p.failedIx.String()
			failed = &s
		}
		if !equality.Semantic.DeepEqual(st.FailedIndexes, failed) {
			st.FailedIndexes = failed
			flush = true
		}
	}
	if f := p.Finished; f != nil && f.Type == batchv1.JobFailureTarget {
		st.Conditions = append(st.Conditions, *f)
		flush = true
		p.Finished = p.newCondition(batchv1.JobFailed, f.Reason, f.Message)
	}
	if f := p.Finished; f != nil && f.Type == batchv1.JobSuccessCriteriaMet {
		if condition(st.Conditions, batchv1.JobSuccessCriteriaMet) == nil {
			st.Conditions = append(st.Conditions, *f)
			flush = true
		}
		p.Finished = p.newCondition(batchv1.JobComplete, f.Reason, f.Message)
	}
	return Tracking{Flush: flush, Release: release}
}

// releasable reports whether pod's finalizer may go: the Job is being
// deleted or has ended, the pod succeeded, or it failed and is not the
// failed pod an index keeps until its replacement exists.
func (p *Pass) releasable(pod *corev1.Pod, failed bool) bool {
	if p.Job.DeletionTimestamp != nil || p.Finished != nil || pod.Status.Phase == corev1.PodSucceeded {
		return true
	}
	if !failed {
		return false
	}
	if ix := CompletionIndex(pod); ix != noIndex && p.Job.Spec.BackoffLimitPerIndex != nil {
		if kept := p.delayed[ix]; kept != nil && kept.UID == pod.UID {
			return false
		}
	}
	return true
}

// Counted takes in the pods whose finalizer is now gone and moves them
// from uncountedTerminatedPods to the counters; it reports whether the
// status changed.
func (p *Pass) Counted(released []types.UID) bool {
	for _, uid := range released {
		delete(p.withFinalizer, uid)
	}
	return p.countReleased()
}

// countReleased moves the uncounted pods no longer tracked to the
// counters.
func (p *Pass) countReleased() bool {
	st := &p.Job.Status
	if st.UncountedTerminatedPods == nil {
		st.UncountedTerminatedPods = &batchv1.UncountedTerminatedPods{}
	}
	unc := st.UncountedTerminatedPods
	keep := func(uids []types.UID) []types.UID {
		var out []types.UID
		for _, u := range uids {
			if p.withFinalizer[u] {
				out = append(out, u)
			}
		}
		return out
	}
	changed := false
	if left := keep(unc.Succeeded); len(left) != len(unc.Succeeded) {
		st.Succeeded += int32(len(unc.Succeeded) - len(left))
		unc.Succeeded = left
		changed = true
	}
	if left := keep(unc.Failed); len(left) != len(unc.Failed) {
		st.Failed += int32(len(unc.Failed) - len(left))
		unc.Failed = left
		changed = true
	}
	return changed
}

// Conclude ends the Job once nothing is left to count or terminate:
// its final condition (Failed or Complete, with completionTime), and
// the Events kube records. It reports whether it did.
func (p *Pass) Conclude() bool {
	f := p.Finished
	if f == nil || p.tooManyUncounted {
		return false
	}
	st := &p.Job.Status
	if unc := st.UncountedTerminatedPods; unc != nil && len(unc.Succeeded)+len(unc.Failed) > 0 {
		return false
	}
	if p.terminating > 0 {
		return false
	}
	p.setCondition(f.Type, corev1.ConditionTrue, f.Reason, f.Message)
	if f.Type == batchv1.JobComplete {
		t := f.LastTransitionTime
		st.CompletionTime = &t
		if c := p.Job.Spec.Completions; c != nil && st.Succeeded > *c {
			p.event(corev1.EventTypeWarning, "TooManySucceededPods", "Too many succeeded pods running after completion count reached")
		}
		p.event(corev1.EventTypeNormal, "Completed", "Job completed")
		return true
	}
	p.event(corev1.EventTypeWarning, f.Reason, "%s", f.Message)
	return true
}
