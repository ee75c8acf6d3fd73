package events

import (
	"errors"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// DropReason says why an Event was not written.
type DropReason string

const (
	// DropInvalid: an unsupported type, or an object no reference can
	// be built for.
	DropInvalid DropReason = "invalid"
	// DropSpam: the object's token bucket was empty.
	DropSpam DropReason = "spam"
	// DropBufferFull: the queue was full; the writer is behind or not
	// started.
	DropBufferFull DropReason = "buffer_full"
	// DropRejected: the server refused the Event for a reason retrying
	// cannot fix (a 4xx).
	DropRejected DropReason = "rejected"
	// DropFailed: every attempt failed for a retriable reason.
	DropFailed DropReason = "failed"
	// DropShutdown: recorded after Start ended, or still queued when its
	// flush ran out of time.
	DropShutdown DropReason = "shutdown"
)

var dropReasons = []DropReason{DropInvalid, DropSpam, DropBufferFull, DropRejected, DropFailed, DropShutdown}

// MetricDropped is the counter of Events not written, by reason.
const MetricDropped = "setpoint_events_dropped_total"

// drops counts dropped Events in memory (for Dropped) and, when a
// registry was given, in Prometheus.
type drops struct {
	counts map[DropReason]*atomic.Uint64
	vec    *prometheus.CounterVec
}

func newDrops(reg prometheus.Registerer) (*drops, error) {
	d := &drops{counts: make(map[DropReason]*atomic.Uint64, len(dropReasons))}
	for _, r := range dropReasons {
		d.counts[r] = new(atomic.Uint64)
	}
	d.vec = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: MetricDropped,
		Help: "Events a recorder did not write, by reason.",
	}, []string{"reason"})
	if reg == nil {
		return d, nil
	}
	if err := reg.Register(d.vec); err != nil {
		// Several broadcasters in one process share the counter.
		are, ok := errors.AsType[prometheus.AlreadyRegisteredError](err)
		if !ok {
			return nil, err
		}
		if d.vec, ok = are.ExistingCollector.(*prometheus.CounterVec); !ok {
			return nil, err
		}
	}
	// Every reason shows from the start, so a rate() over it has a base.
	for _, r := range dropReasons {
		d.vec.WithLabelValues(string(r))
	}
	return d, nil
}

func (d *drops) add(r DropReason) {
	d.counts[r].Add(1)
	d.vec.WithLabelValues(string(r)).Inc()
}

func (d *drops) get(r DropReason) uint64 {
	if c, ok := d.counts[r]; ok {
		return c.Load()
	}
	return 0
}
