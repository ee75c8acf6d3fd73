package scheduler

import (
	"time"

	"github.com/setpoint-dev/setpoint/pkg/clock"
)

// DefaultSchedulerName is the spec.schedulerName of pods that name none:
// the API server defaults it, and this controller takes those pods.
const DefaultSchedulerName = "default-scheduler"

// Options configure the scheduler. The zero value is kube-scheduler's
// default profile.
type Options struct {
	// SchedulerName selects the pods to schedule by spec.schedulerName
	// and names the controller in Events; empty is "default-scheduler".
	SchedulerName string
	// InitialBackoff and MaxBackoff space the attempts of a pod that
	// did not fit: InitialBackoff after the first failure, doubling up to
	// MaxBackoff. 0 means 1 s and 10 s, kube-scheduler's defaults.
	InitialBackoff, MaxBackoff time.Duration
	// RetryUnschedulable is how long an unschedulable pod waits when
	// nothing changes before it is tried again; 0 means 5 minutes.
	RetryUnschedulable time.Duration
	// Workers is how many bindings may be in flight at once; decisions
	// are still made one at a time, each seeing the pods placed before
	// it. 0 means 64: kube-scheduler binds each pod on its own goroutine,
	// so under a burst of creates its binds keep pace with them rather
	// than queueing behind a few workers.
	Workers int
	// Clock is the time source for back-off and condition times; nil is
	// the real clock.
	Clock clock.Clock
}

func (o Options) withDefaults() Options {
	if o.SchedulerName == "" {
		o.SchedulerName = DefaultSchedulerName
	}
	if o.InitialBackoff <= 0 {
		o.InitialBackoff = time.Second
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 10 * time.Second
	}
	if o.RetryUnschedulable <= 0 {
		o.RetryUnschedulable = 5 * time.Minute
	}
	if o.Workers <= 0 {
		o.Workers = 64
	}
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	return o
}
