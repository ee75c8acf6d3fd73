package cronjob

import (
	"errors"
	"fmt"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/setpoint-dev/setpoint/pkg/cron"
)

// requeueDelay is added to every wake-up: a clock a little behind the
// scheduler's still finds the time due (kube's nextScheduleDelta).
const requeueDelay = 100 * time.Millisecond

// manyMissed is how many missed schedule times are "too many": a
// CronJob whose last schedule is that far behind (a stopped
// controller, a skewed clock) starts only the latest and says so.
const manyMissed = 100

// Missed says how many schedule times passed unmet.
type Missed int

// The counts MostRecent tells apart.
const (
	NoneMissed Missed = iota
	FewMissed
	ManyMissed
)

// ErrScheduleGap is a schedule whose activations are under a second
// apart, or that never fires ("59 23 31 2 *"): its missed times cannot
// be counted.
var ErrScheduleGap = errors.New("time difference between two schedules is less than 1 second")

// FormatSchedule is the schedule the controller parses: spec.schedule
// with spec.timeZone put in front as "TZ=<zone> ", unless the schedule
// names a zone itself (inZone) or the zone cannot be loaded (Decide
// refuses the CronJob before parsing then).
func FormatSchedule(cj *batchv1.CronJob) (spec string, inZone bool) {
	if strings.Contains(cj.Spec.Schedule, "TZ") {
		return cj.Spec.Schedule, true
	}
	if cj.Spec.TimeZone != nil {
		if _, err := time.LoadLocation(*cj.Spec.TimeZone); err == nil {
			return "TZ=" + *cj.Spec.TimeZone + " " + cj.Spec.Schedule, false
		}
	}
	return cj.Spec.Schedule, false
}

// ParseSchedule parses the CronJob's schedule as FormatSchedule gives
// it.
func ParseSchedule(cj *batchv1.CronJob) (cron.Schedule, error) {
	spec, _ := FormatSchedule(cj)
	return cron.Parse(spec)
}

// MostRecent looks for schedule times between the CronJob's last
// schedule (or its creation) and now. It returns where it started
// looking (earliest), the latest schedule time not after now (nil if
// none) and how many were missed. withDeadline starts the search no
// earlier than startingDeadlineSeconds before now, since nothing older
// would be started.
//
// The count is an estimate, as kube makes it: the time from the first
// missed activation to now divided by the gap between the first two.
// The latest time is then searched for from about one gap before the
// estimated last, so irregular schedules ("30 6-16/4 * * 1-5") and
// "@every" still land on a real activation.
func MostRecent(cj *batchv1.CronJob, now time.Time, s cron.Schedule, withDeadline bool) (earliest time.Time, recent *time.Time, missed Missed, err error) {
	earliest = cj.CreationTimestamp.Time
	if cj.Status.LastScheduleTime != nil {
		earliest = cj.Status.LastScheduleTime.Time
	}
	if withDeadline && cj.Spec.StartingDeadlineSeconds != nil {
		if deadline := now.Add(-time.Duration(*cj.Spec.StartingDeadlineSeconds) * time.Second); deadline.After(earliest) {
			earliest = deadline
		}
	}
	t1 := s.Next(earliest)
	t2 := s.Next(t1)
	if now.Before(t1) {
		return earliest, nil, NoneMissed, nil
	}
	if now.Before(t2) {
		return earliest, &t1, NoneMissed, nil
	}
	gap := int64(t2.Sub(t1).Round(time.Second).Seconds())
	if gap < 1 {
		return earliest, nil, NoneMissed, ErrScheduleGap
	}
	count := int64(now.Sub(t1).Seconds())/gap + 1
	var latest time.Time
	from := t1.Add(time.Duration((count-2)*gap) * time.Second)
	for t := s.Next(from); !t.After(now); t = s.Next(t) {
		latest = t
	}
	missed = FewMissed
	if count > manyMissed {
		missed = ManyMissed
	}
	if latest.IsZero() {
		return earliest, nil, missed, nil
	}
	return earliest, &latest, missed, nil
}

// RequeueAfter is how long until the CronJob should be looked at
// again: just after the first schedule time after the latest one
// already due (ignoring the starting deadline), or after now when its
// missed times cannot be counted.
func RequeueAfter(cj *batchv1.CronJob, now time.Time, s cron.Schedule) time.Duration {
	earliest, recent, missed, err := MostRecent(cj, now, s, false)
	from := now
	switch {
	case err != nil:
	case recent != nil:
		from = *recent
	case missed == NoneMissed:
		from = earliest
	}
	return s.Next(from).Add(requeueDelay).Sub(now)
}

// Due is the schedule time to start a Job for, if any: the most recent
// one not before the starting deadline. missed tells the caller
// whether to warn of too many missed times.
func Due(cj *batchv1.CronJob, now time.Time, s cron.Schedule) (*time.Time, Missed, error) {
	_, recent, missed, err := MostRecent(cj, now, s, true)
	if recent == nil || recent.After(now) {
		return nil, missed, err
	}
	return recent, missed, err
}

// JobName names the Job of a scheduled time: the CronJob's name and
// the time in minutes since the epoch, the same on every pass.
func JobName(cj *batchv1.CronJob, scheduled time.Time) string {
	return fmt.Sprintf("%s-%d", cj.Name, scheduled.Unix()/60)
}
