package storage

import (
	"context"
	"errors"
	"log/slog"
	"time"
)

// Retention says how much history a store keeps for watches and reads at
// older revisions: every change younger than MinAge and the newest
// MinBytes of changes, whichever reaches further back.
type Retention struct {
	MinAge   time.Duration
	MinBytes int64
}

// DefaultRetention keeps at least 15 minutes or 64 MiB of history. Fifteen
// minutes covers the longest watch a reflector keeps open (10 minutes)
// with room for a reconnect.
var DefaultRetention = Retention{MinAge: 15 * time.Minute, MinBytes: 64 << 20}

// spanWidth is the time resolution of retention; changes within one
// span are kept or released together, bounding the tracker's memory by
// time rather than by write rate.
const spanWidth = time.Second

// RetentionTracker decides how far history can be compacted. It is a
// deterministic core: callers feed it changes with their times and ask
// it, at a time they choose, for the revision to compact to.
type RetentionTracker struct {
	retention Retention
	spans     []span // oldest first
	bytes     int64  // sum over spans
}

// span is a run of changes seen within spanWidth.
type span struct {
	start, newest time.Time
	last          int64 // highest revision in the span
	bytes         int64
}

// NewRetentionTracker starts tracking at revision rev, treating whatever
// history lies at or below it as written at now (its real age is
// unknown, so it is kept for a full MinAge).
func NewRetentionTracker(r Retention, rev int64, now time.Time) *RetentionTracker {
	return &RetentionTracker{retention: r, spans: []span{{start: now, newest: now, last: rev}}}
}

// Observe records a change of size bytes at revision rev, seen at now.
func (t *RetentionTracker) Observe(rev int64, size int, now time.Time) {
	if n := len(t.spans); n > 0 && now.Sub(t.spans[n-1].start) < spanWidth {
		s := &t.spans[n-1]
		s.newest, s.last, s.bytes = now, rev, s.bytes+int64(size)
	} else {
		t.spans = append(t.spans, span{start: now, newest: now, last: rev, bytes: int64(size)})
	}
	t.bytes += int64(size)
}

// Compactable returns the highest revision whose history may be dropped
// at now, or 0 when nothing may be, and forgets the history it releases.
// A span is released only when it is older than MinAge and the history
// after it still holds at least MinBytes.
func (t *RetentionTracker) Compactable(now time.Time) int64 {
	var target int64
	for len(t.spans) > 1 {
		s := t.spans[0]
		if now.Sub(s.newest) <= t.retention.MinAge || t.bytes-s.bytes < t.retention.MinBytes {
			break
		}
		target = s.last
		t.bytes -= s.bytes
		t.spans = t.spans[1:]
	}
	return target
}

// compactable is what a Compactor needs of a store.
type compactable interface {
	Watch(ctx context.Context, prefix string, afterRevision int64) (<-chan Event, error)
	Revision(ctx context.Context) (int64, error)
	Compact(ctx context.Context, revision int64) error
}

// Compactor applies a Retention to a store: it watches every change to
// learn its size and time, and compacts the history that falls out of
// the retention window.
type Compactor struct {
	Store     compactable
	Retention Retention
	// Interval between compaction checks; default 10 s.
	Interval time.Duration
	Logger   *slog.Logger
}

// Start runs the compactor until ctx ends.
func (c *Compactor) Start(ctx context.Context) error {
	interval := c.Interval
	if interval <= 0 {
		interval = 10 * time.Second
	}
	log := c.Logger
	if log == nil {
		log = slog.Default()
	}
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	var tracker *RetentionTracker
	var events <-chan Event
	for {
		if events == nil {
			rev, err := c.Store.Revision(ctx)
			if err == nil {
				events, err = c.Store.Watch(ctx, "", rev)
			}
			if err != nil {
				if ctx.Err() != nil || errors.Is(err, ErrClosed) {
					return nil
				}
				return err
			}
			// Changes missed while the watch was down are kept a full
			// MinAge, never released early.
			tracker = NewRetentionTracker(c.Retention, rev, time.Now())
		}
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-events:
			switch {
			case !ok:
				if ctx.Err() != nil {
					return nil
				}
				return ErrClosed
			case ev.Err != nil:
				log.Warn("compactor watch ended, restarting", "err", ev.Err)
				events = nil
			default:
				tracker.Observe(ev.Revision, len(ev.Key)+len(ev.Value), time.Now())
			}
		case <-ticker.C:
			target := tracker.Compactable(time.Now())
			if target == 0 {
				continue
			}
			if err := c.Store.Compact(ctx, target); err != nil {
				if ctx.Err() != nil || errors.Is(err, ErrClosed) {
					return nil
				}
				log.Error("compaction failed", "revision", target, "err", err)
				continue
			}
			log.Debug("compacted", "revision", target)
		}
	}
}
