package job

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// failedIndexes are the indexes failed for good: those the status names
// and those of pods still tracked whose failure ends their index
// (a FailIndex rule, or backoffLimitPerIndex reached).
func (p *Pass) failedIndexes() *Indexes {
	completions := int(completionsOf(p.Job))
	var prev Indexes
	if p.Job.Status.FailedIndexes != nil {
		prev = ParseIndexes(*p.Job.Status.FailedIndexes, completions)
	}
	var failed []int
	for _, pod := range p.Pods {
		if ix := CompletionIndex(pod); ix != noIndex && ix < completions && hasTrackingFinalizer(pod) && p.indexFailed(pod) {
			failed = append(failed, ix)
		}
	}
	out := prev.With(failed...)
	return &out
}

func (p *Pass) indexFailed(pod *corev1.Pod) bool {
	if !p.podFailed(pod) {
		return false
	}
	v := MatchFailurePolicy(p.Job.Spec.PodFailurePolicy, pod)
	if v.Action == batchv1.PodFailurePolicyActionFailIndex {
		return true
	}
	return v.Counts && indexFailures(pod) >= *p.Job.Spec.BackoffLimitPerIndex
}

// delayedPerIndex are, per index still to run, the latest failed pod
// still tracked: its finalizer stays until a replacement exists, which
// inherits its failure counts.
func (p *Pass) delayedPerIndex() map[int]*corev1.Pod {
	activeIx := map[int]bool{}
	for _, ix := range indexesOf(p.Active) {
		activeIx[ix] = true
	}
	out := map[int]*corev1.Pod{}
	for _, pod := range p.newlyFinished(nil, p.podFailed) {
		ix := CompletionIndex(pod)
		if p.succeededIx.Has(ix) || p.failedIx.Has(ix) || activeIx[ix] {
			continue
		}
		if last, ok := out[ix]; ok {
			if indexFailures(last)+indexIgnoredFailures(last) <= indexFailures(pod)+indexIgnoredFailures(pod) && !FinishTime(pod).Before(FinishTime(last)) {
				out[ix] = pod
			}
			continue
		}
		out[ix] = pod
	}
	return out
}
