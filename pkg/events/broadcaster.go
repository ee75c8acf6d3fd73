package events

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Broadcaster queues the Events its Recorders make and, while Start runs,
// writes them to the API server. It is safe for concurrent use.
type Broadcaster struct {
	opts    Options
	log     *slog.Logger
	queue   chan *pending
	spam    *spamFilter
	similar *similarEvents
	drops   *drops

	started atomic.Bool
	// stopped is set when Start's context ends: later Events could only
	// wait in the queue for a writer that will not come.
	stopped atomic.Bool
	// overflowing is set by the first drop for a full queue and cleared
	// by the next Event queued, so an overload is logged once, not per
	// Event.
	overflowing atomic.Bool

	// Touched by the writer goroutine only.
	recent    *lru[aggKey, *aggregate]
	lastNanos int64
}

// pending is an Event on its way to the server.
type pending struct {
	event *corev1.Event // complete but for its name
	key   aggKey
	at    time.Time
	// name is the Event's name once a create has been tried, so a retry
	// reuses it: a create whose answer was lost then finds its Event
	// (AlreadyExists) instead of writing a second one.
	name string
	// tried: after an attempt, AlreadyExists may be our own create.
	tried bool
}

// NewBroadcaster returns a Broadcaster with opts. Nothing is written until
// Start runs.
func NewBroadcaster(opts Options) (*Broadcaster, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	d, err := newDrops(opts.Registerer)
	if err != nil {
		return nil, err
	}
	return &Broadcaster{
		opts:    opts,
		log:     opts.Logger,
		queue:   make(chan *pending, opts.BufferSize),
		spam:    newSpamFilter(opts.CacheSize, opts.SpamBurst, opts.SpamRefill),
		similar: newSimilarEvents(opts.CacheSize, opts.SimilarEvents, opts.AggregationWindow),
		drops:   d,
		recent:  newLRU[aggKey, *aggregate](opts.CacheSize),
	}, nil
}

// Recorder returns a Recorder whose Events name component as their source
// and reporting controller; usually the controller's name.
func (b *Broadcaster) Recorder(component string) *Recorder {
	return &Recorder{b: b, source: corev1.EventSource{Component: component, Host: b.opts.Host}}
}

// Dropped returns how many Events were dropped for reason r so far.
func (b *Broadcaster) Dropped(r DropReason) uint64 { return b.drops.get(r) }

// enqueue hands p to the writer without waiting.
func (b *Broadcaster) enqueue(p *pending) {
	if b.stopped.Load() {
		b.drop(context.Background(), DropShutdown, p.event, slog.LevelDebug, "event dropped: recorder stopped")
		return
	}
	select {
	case b.queue <- p:
		b.overflowing.Store(false)
	default:
		level := slog.LevelDebug
		if b.overflowing.CompareAndSwap(false, true) {
			level = slog.LevelWarn
		}
		b.drop(context.Background(), DropBufferFull, p.event, level, "event dropped: queue full")
	}
}

// drop counts an Event not written and logs why.
func (b *Broadcaster) drop(ctx context.Context, r DropReason, ev *corev1.Event, level slog.Level, msg string, attrs ...any) {
	b.drops.add(r)
	b.log.Log(ctx, level, msg, append(eventAttrs(ev), attrs...)...)
}

// eventAttrs are the log attributes that identify an Event.
func eventAttrs(ev *corev1.Event) []any {
	o := ev.InvolvedObject
	return []any{
		"kind", o.Kind, "namespace", o.Namespace, "name", o.Name,
		"type", ev.Type, "reason", ev.Reason, "component", ev.Source.Component,
	}
}
