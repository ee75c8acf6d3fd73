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
	if job.DeletionTimestamp != nil || job.Spec.TTLSecondsAfterFinished == nil {
		return 0, false, nil
	}
	for _, c := range job.Status.Conditions {
		if (c.Type != batchv1.JobComplete && c.Type != batchv1.JobFailed) || c.Status != corev1.ConditionTrue {
			continue
		}
		if c.LastTransitionTime.IsZero() {
			return 0, false, fmt.Errorf("job %s/%s: %w", job.Namespace, job.Name, ErrNoFinishTime)
		}
		left := c.LastTransitionTime.Add(time.Duration(*job.Spec.TTLSecondsAfterFinished) * time.Second).Sub(now)
		if left <= 0 {
			return 0, true, nil
		}
		return left, false, nil
	}
	return 0, false, nil
}
