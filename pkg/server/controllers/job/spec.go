package job

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// condition is the Job's condition of type t if it is True.
func condition(cs []batchv1.JobCondition, t batchv1.JobConditionType) *batchv1.JobCondition {
	for i := range cs {
		if cs[i].Type == t && cs[i].Status == corev1.ConditionTrue {
			c := cs[i]
			return &c
		}
	}
	return nil
}

// Finished reports whether job has ended: Complete or Failed is True.
func Finished(job *batchv1.Job) bool {
	for _, c := range job.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

func active(pod *corev1.Pod) bool {
	return pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed && pod.DeletionTimestamp == nil
}

func terminating(pod *corev1.Pod) bool {
	return pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed && pod.DeletionTimestamp != nil
}

func indexed(job *batchv1.Job) bool {
	return job.Spec.CompletionMode != nil && *job.Spec.CompletionMode == batchv1.IndexedCompletion
}

func suspended(job *batchv1.Job) bool { return job.Spec.Suspend != nil && *job.Spec.Suspend }

// onlyReplaceFailed: a pod being deleted is replaced only once it has
// failed (podReplacementPolicy Failed, implied by a pod failure policy).
func onlyReplaceFailed(job *batchv1.Job) bool {
	return job.Spec.PodFailurePolicy != nil ||
		(job.Spec.PodReplacementPolicy != nil && *job.Spec.PodReplacementPolicy == batchv1.Failed)
}

// backoffLimit is spec.backoffLimit, 6 when unset as the API defaults it.
func backoffLimit(job *batchv1.Job) int32 {
	if job.Spec.BackoffLimit == nil {
		return 6
	}
	return *job.Spec.BackoffLimit
}

// completionsOf is spec.completions; only Indexed Jobs, where the API
// requires it, call this without checking it is set.
func completionsOf(job *batchv1.Job) int32 {
	if job.Spec.Completions == nil {
		return 0
	}
	return *job.Spec.Completions
}

func parallelismOf(job *batchv1.Job) int32 {
	if job.Spec.Parallelism == nil {
		return 1
	}
	return *job.Spec.Parallelism
}

func uidSet(uids []types.UID) map[types.UID]bool {
	out := make(map[types.UID]bool, len(uids))
	for _, u := range uids {
		out[u] = true
	}
	return out
}
