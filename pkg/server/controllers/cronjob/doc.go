// Package cronjob starts each CronJob's Jobs on its schedule, as
// kube-controller-manager's CronJob controller (v2) does.
//
//	CronJobs, Jobs (informers) -> this controller -> Jobs (create at each
//	                                                   scheduled time, delete
//	                                                   old or replaced ones)
//	                                                -> CronJob status (active,
//	                                                   lastScheduleTime,
//	                                                   lastSuccessfulTime)
//	                                                -> requeue at the next
//	                                                   scheduled time
//
// A pass over a CronJob first deletes the finished Jobs beyond its
// history limits (Prune), then brings its status up to date from the
// Jobs it controls (Observe: finished Jobs leave status.active, the
// latest success sets lastSuccessfulTime), then decides whether a Job
// is due (Decide): the most recent schedule time missed since
// lastScheduleTime (or creation), unless it is older than
// startingDeadlineSeconds, already started, forbidden by a running Job
// (Forbid), or the CronJob is suspended. Replace deletes the running
// Jobs first. The Job is named after its scheduled time in minutes
// since the epoch (JobName), so a pass repeated after a crash finds it
// instead of starting it twice. A pass asks to be woken 100 ms after
// the next scheduled time, unless the CronJob is suspended or its
// schedule or zone unusable; a CronJob whose schedule or zone changes
// is next looked at when the new schedule fires (the rescheduler), so
// that times missed under it are not started.
//
// The decisions are pure functions of the CronJob, its Jobs and the
// time of an injected clock; the reconciler only reads, writes and
// records Events.
package cronjob
