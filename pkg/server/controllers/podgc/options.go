package podgc

import (
	"log/slog"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/clock"
)

// Kube-controller-manager's defaults.
const (
	// DefaultTerminatedPodThreshold is --terminated-pod-gc-threshold's
	// default.
	DefaultTerminatedPodThreshold = 12500
	// DefaultPeriod is how often the collector looks at the cluster.
	DefaultPeriod = 20 * time.Second
	// DefaultQuarantine is how long a node must be missing from the
	// informer before the server is asked whether it is really gone.
	DefaultQuarantine = 40 * time.Second
)

// Options configure the collector. The zero value is kube's defaults.
type Options struct {
	// TerminatedPodThreshold is how many terminated pods may exist
	// before the oldest are deleted; 0 means
	// DefaultTerminatedPodThreshold, negative turns that collection off
	// (kube's flag turns it off with any value <= 0).
	TerminatedPodThreshold int
	// Period is the time between looks; 0 means DefaultPeriod.
	Period time.Duration
	// Quarantine is how long a node must be missing before its pods
	// are orphans; 0 means DefaultQuarantine.
	Quarantine time.Duration
	// Clock tells the time and times the looks; nil is the real clock.
	Clock clock.Clock
	// Logger receives the collector's logs; nil is the manager's.
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.TerminatedPodThreshold == 0 {
		o.TerminatedPodThreshold = DefaultTerminatedPodThreshold
	}
	if o.Period <= 0 {
		o.Period = DefaultPeriod
	}
	if o.Quarantine <= 0 {
		o.Quarantine = DefaultQuarantine
	}
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	return o
}
