package cronjob

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Event is one Event to record on the CronJob.
type Event struct {
	Type, Reason, Message string
}

// Observe brings cj's status up to date from the Jobs it controls:
// finished Jobs leave status.active (SawCompletedJob), and the latest
// completion time of a Complete Job, in status.active or not, becomes
// lastSuccessfulTime. It changes cj.Status in place and returns what
// only the API can settle: running Jobs that status.active lacks
// (unexpected: created by someone else, or by a pass whose status write
// was lost, or the status read is stale) and entries of status.active
// with no Job among jobs (gone, unless the Job cache is behind).
func Observe(cj *batchv1.CronJob, jobs []*batchv1.Job) (unexpected []*batchv1.Job, gone []corev1.ObjectReference, events []Event) {
	children := make(map[types.UID]bool, len(jobs))
	for _, j := range jobs {
		children[j.UID] = true
		finished, how := Finished(j)
		if !finished {
			if !inActive(cj, j.UID) {
				unexpected = append(unexpected, j)
			}
			continue
		}
		if inActive(cj, j.UID) {
			dropActive(cj, j.UID)
			events = append(events, Event{corev1.EventTypeNormal, "SawCompletedJob", fmt.Sprintf("Saw completed job: %s, condition: %v", j.Name, how)})
		}
		if Succeeded(j) {
			done := j.Status.CompletionTime
			if cj.Status.LastSuccessfulTime == nil {
				cj.Status.LastSuccessfulTime = done.DeepCopy()
			} else if done != nil && done.After(cj.Status.LastSuccessfulTime.Time) {
				cj.Status.LastSuccessfulTime = done.DeepCopy()
			}
		}
	}
	for _, r := range cj.Status.Active {
		if !children[r.UID] {
			gone = append(gone, r)
		}
	}
	return unexpected, gone, events
}
