// Package cron parses the schedules of Kubernetes CronJobs and says
// when a schedule next fires.
//
// It sits between a CronJob's spec.schedule and the CronJob controller:
// the API server parses a schedule to accept or refuse it (422 with the
// parser's message), and the controller asks the parsed Schedule for
// the next activation after a time to decide when to create a Job.
//
// The syntax is the one kube-apiserver and kube-controller-manager
// accept through robfig/cron/v3's standard parser, quirks included, so
// that a schedule valid in Kubernetes is valid here and fires at the
// same instants:
//
//   - five fields: minute (0-59), hour (0-23), day of month (1-31),
//     month (1-12 or jan-dec) and day of week (0-6 or sun-sat), each a
//     comma-separated list of "*", "?", a number or name, a range
//     "a-b", and an optional step "/n" ("a/n" means a to the field's
//     maximum);
//   - the descriptors @yearly, @annually, @monthly, @weekly, @daily,
//     @midnight and @hourly, and "@every <duration>";
//   - a "CRON_TZ=<zone> " or "TZ=<zone> " prefix, which makes the
//     schedule fire in that IANA time zone.
//
// A day matches when both the day-of-month and day-of-week fields
// match, if either of them starts with "*" or "?" (without a step
// above 1); otherwise when either matches, as in Vixie cron.
//
// A schedule without a time zone fires in the location of the time it
// is given: the controller passes its clock's time, in its own
// location, or in the CronJob's spec.timeZone (In). Next searches five
// years ahead and returns the zero time when nothing fires in that
// span ("0 0 30 2 *").
package cron
