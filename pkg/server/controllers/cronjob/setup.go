package cronjob

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/utils/ptr"

	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/predicate"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/collectors"
)

// ControllerName is the source of the controller's Events, as in kube.
const ControllerName = "cronjob-controller"

// Options configure the controller. The zero value is ready to use.
type Options struct {
	// Clock tells the time that schedules are judged by, and wakes the
	// queue for the next schedule time; nil is the real clock.
	Clock clock.Clock
	// Workers is how many CronJobs are synced at once; 0 means 5,
	// kube-controller-manager's --concurrent-cron-job-syncs.
	Workers int
}

// Setup adds the CronJob controller to m.
func Setup(m *manager.Manager, opts Options) error {
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if opts.Workers <= 0 {
		opts.Workers = 5
	}
	skew, err := skewMetric(m.Registry())
	if err != nil {
		return err
	}
	events := m.EventRecorder(ControllerName)
	r := &reconciler{cache: m.Client(), api: m.API(), events: events, clock: opts.Clock,
		skew: func(d time.Duration) { skew.Observe(d.Seconds()) }}
	_, err = m.NewController(r, controller.Options{Name: "cronjob", Workers: opts.Workers, Clock: opts.Clock},
		// A new schedule is looked at when it next fires (the
		// rescheduler), not at once: a time it missed since the last
		// Job is not started.
		controller.For[*batchv1.CronJob](controller.WithPredicates(predicate.Funcs[*batchv1.CronJob]{
			UpdateFunc: func(old, new *batchv1.CronJob) bool { return !scheduleChanged(old, new) },
		})),
		controller.Owns[*batchv1.Job](),
		&rescheduler{cluster: m, clock: opts.Clock, events: events},
	)
	return err
}

func scheduleChanged(old, new *batchv1.CronJob) bool {
	return old.Spec.Schedule != new.Spec.Schedule || !ptr.Equal(old.Spec.TimeZone, new.Spec.TimeZone)
}

// skewMetric is kube's cronjob_controller_job_creation_skew_duration_seconds:
// how late after its scheduled time each Job was created.
func skewMetric(reg prometheus.Registerer) (prometheus.Histogram, error) {
	return collectors.Histogram(reg, prometheus.HistogramOpts{
		Subsystem: "cronjob_controller",
		Name:      "job_creation_skew_duration_seconds",
		Help:      "Time between when a cronjob is scheduled to be run, and when the corresponding job is created",
		Buckets:   prometheus.ExponentialBuckets(1, 2, 10),
	})
}
