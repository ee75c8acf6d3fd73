package ttlafterfinished

import (
	"errors"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// ErrNoFinishTime is a finished Job whose end condition has no
// transition time, so its TTL cannot run.
var ErrNoFinishTime = errors.New("unable to find the time when the Job finished")

// Expiry says whether job is due for deletion at now. A Job without a
// TTL, not finished, or being deleted is never due (wait 0, due false);
// one whose TTL runs is due once it has run, and otherwise waits the
// time left.
func Expiry(job *batchv1.Job, now time.Time) (wait time.Duration, due bool, err error) {
	at, ok, err := expiresAt(job)
	if !ok || err != nil {
		return 0, false, err
	}
	if left := at.Sub(now); left > 0 {
		return left, false, nil
	}
	return 0, true, nil
}

// expiresAt is when job's TTL runs out; ok is false when it never does.
func expiresAt(job *batchv1.Job) (at time.Time, ok bool, err error) {
	if job.DeletionTimestamp != nil || job.Spec.TTLSecondsAfterFinished == nil {
		return time.Time{}, false, nil
	}
	for _, c := range job.Status.Conditions {
		if (c.Type != batchv1.JobComplete && c.Type != batchv1.JobFailed) || c.Status != corev1.ConditionTrue {
			continue
		}
		if c.LastTransitionTime.IsZero() {
			return time.Time{}, false, fmt.Errorf("job %s/%s: %w", job.Namespace, job.Name, ErrNoFinishTime)
		}
		return c.LastTransitionTime.Add(time.Duration(*job.Spec.TTLSecondsAfterFinished) * time.Second), true, nil
	}
	return time.Time{}, false, nil
}
