package cronjob

import (
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Decision is what a pass does about the schedule once the status is
// current.
type Decision struct {
	// Events to record, in order, whatever else happens.
	Events []Event
	// Start is the scheduled time of the Job to create; zero for none.
	Start time.Time
	// Replace deletes the Jobs of status.active before the new one is
	// created (concurrencyPolicy Replace).
	Replace bool
	// Requeue is when to look again once done (after the Job is
	// created, when Start is set); nil waits for the next change of
	// the CronJob or its Jobs, as for a suspended CronJob.
	Requeue *time.Duration
}

// Decide says whether a Job is due at now and when to look again, in
// kube's order of checks: a CronJob being deleted, with an unknown
// spec.timeZone, suspended, or with a schedule that cannot be parsed
// or counted waits for a change; otherwise the most recent missed time
// is started unless it is older than startingDeadlineSeconds, already
// started (its Job in status.active or lastScheduleTime), or
// concurrencyPolicy Forbid finds a Job running (JobAlreadyActive).
func Decide(cj *batchv1.CronJob, now time.Time) Decision {
	var d Decision
	warn := func(reason, format string, args ...any) {
		d.Events = append(d.Events, Event{corev1.EventTypeWarning, reason, fmt.Sprintf(format, args...)})
	}
	if cj.DeletionTimestamp != nil {
		return d
	}
	if tz := cj.Spec.TimeZone; tz != nil {
		if _, err := time.LoadLocation(*tz); err != nil {
			warn("UnknownTimeZone", "invalid timeZone: %q: %s", *tz, err)
			return d
		}
	}
	if cj.Spec.Suspend != nil && *cj.Spec.Suspend {
		return d
	}
	if _, inZone := FormatSchedule(cj); inZone {
		warn("UnsupportedSchedule", "CRON_TZ or TZ used in schedule %q is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details", cj.Spec.Schedule)
	}
	sched, err := ParseSchedule(cj)
	if err != nil {
		warn("UnparseableSchedule", "unparseable schedule: %q : %s", cj.Spec.Schedule, err)
		return d
	}
	due, missed, err := Due(cj, now, sched)
	if due != nil && missed == ManyMissed {
		warn("TooManyMissedTimes", "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew")
	}
	if err != nil {
		warn("InvalidSchedule", "invalid schedule: %s : %s", cj.Spec.Schedule, err)
		return d
	}
	later := RequeueAfter(cj, now, sched)
	d.Requeue = &later
	switch {
	case due == nil:
		return d
	// kube's guard: Due searches from the deadline on, so with an
	// unchanged clock it finds nothing this old.
	case cj.Spec.StartingDeadlineSeconds != nil && due.Add(time.Duration(*cj.Spec.StartingDeadlineSeconds)*time.Second).Before(now):
		warn("MissSchedule", "Missed scheduled time to start a job: %s", due.UTC().Format(time.RFC1123Z))
		return d
	case inActiveByName(cj, cj.Namespace, JobName(cj, *due)) || cj.Status.LastScheduleTime.Equal(&metav1.Time{Time: *due}):
		return d
	case cj.Spec.ConcurrencyPolicy == batchv1.ForbidConcurrent && len(cj.Status.Active) > 0:
		d.Events = append(d.Events, Event{corev1.EventTypeNormal, "JobAlreadyActive", "Not starting job because prior execution is running and concurrency policy is Forbid"})
		return d
	}
	d.Start = *due
	d.Replace = cj.Spec.ConcurrencyPolicy == batchv1.ReplaceConcurrent && len(cj.Status.Active) > 0
	// The wait after starting counts from the new lastScheduleTime.
	started := cj.DeepCopy()
	started.Status.LastScheduleTime = &metav1.Time{Time: *due}
	later = RequeueAfter(started, now, sched)
	d.Requeue = &later
	return d
}
