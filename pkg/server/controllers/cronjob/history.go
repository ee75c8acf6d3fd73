package cronjob

import (
	"slices"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
)

// Prune is the finished Jobs to delete so that no more than
// successfulJobsHistoryLimit Complete and failedJobsHistoryLimit Failed
// ones remain: the oldest by start time (Jobs never started last, ties
// by name), successful ones first. A limit left unset keeps them all.
func Prune(cj *batchv1.CronJob, jobs []*batchv1.Job) []*batchv1.Job {
	var succeeded, failed []*batchv1.Job
	for _, j := range jobs {
		switch _, how := Finished(j); how {
		case batchv1.JobComplete:
			succeeded = append(succeeded, j)
		case batchv1.JobFailed:
			failed = append(failed, j)
		}
	}
	var out []*batchv1.Job
	for _, c := range []struct {
		limit *int32
		jobs  []*batchv1.Job
	}{{cj.Spec.SuccessfulJobsHistoryLimit, succeeded}, {cj.Spec.FailedJobsHistoryLimit, failed}} {
		if c.limit == nil || len(c.jobs) <= int(*c.limit) {
			continue
		}
		slices.SortStableFunc(c.jobs, byStartTime)
		out = append(out, c.jobs[:len(c.jobs)-int(*c.limit)]...)
	}
	return out
}

// byStartTime orders Jobs by status.startTime, unstarted ones last,
// then by name.
func byStartTime(a, b *batchv1.Job) int {
	as, bs := a.Status.StartTime, b.Status.StartTime
	switch {
	case as == nil && bs != nil:
		return 1
	case as != nil && bs == nil:
		return -1
	case as.Equal(bs):
		return strings.Compare(a.Name, b.Name)
	case as.Before(bs):
		return -1
	}
	return 1
}
