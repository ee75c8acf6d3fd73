package storage

import (
	"context"
	"errors"
	"log/slog"
	"time"
)

// Retention says how much history a store keeps for watches and reads at
// older revisions: every change younger than MinAge and the newest
// MinBytes of changes, whichever reaches further back, but never more
// than the newest MaxBytes of changes.
type Retention struct {
	MinAge   time.Duration
	MinBytes int64
	// MaxBytes bounds the history whatever its age: past it, the oldest
	// changes are released even when younger than MinAge, down to
	// MaxBytes less an eighth so that compactions come in steps rather
	// than on every write. It wins over MinAge and MinBytes; 0 means no
	// bound. The newest changes (within a second, up to an eighth of
	// MaxBytes, and at least the newest one) are always kept.
	MaxBytes int64
}

// DefaultRetention keeps at least 15 minutes or 64 MiB of history, and at
// most 256 MiB. Fifteen minutes covers the longest watch a reflector keeps
// open (10 minutes) with room for a reconnect. The byte bound is what a
// burst of large writes may hold: 160 updates of a 3 MiB object within
// 15 minutes kept 480 MiB of history without it. 256 MiB is an eighth of
// the default quota (storage.DefaultQuota), so history alone never fills
// the store; a server with a smaller quota lowers it (see
// RetentionForQuota).
var DefaultRetention = Retention{MinAge: 15 * time.Minute, MinBytes: 64 << 20, MaxBytes: 256 << 20}

// RetentionForQuota returns r with its byte bounds lowered so history
// takes at most an eighth of quota (when quota is positive): the rest is
// left to live objects and to the history written between compactions.
func RetentionForQuota(r Retention, quota int64) Retention {
	if quota <= 0 {
		return r
	}
	limit := quota / 8
	if r.MaxBytes == 0 || r.MaxBytes > limit {
		r.MaxBytes = limit
	}
	r.MinBytes = min(r.MinBytes, r.MaxBytes)
	return r
}

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

// spanSplit divides MaxBytes into the largest span: a span is closed once
// it holds MaxBytes/spanSplit bytes, so a burst within one second can be
// released in steps. Release under the byte bound goes down to
// MaxBytes - MaxBytes/spanSplit.
const spanSplit = 8

// span is a run of changes seen within spanWidth (and, with a byte bound,
// holding at most MaxBytes/spanSplit bytes before the last change).
type span struct {
	start, newest time.Time
	last          int64 // highest revision in the span
	bytes         int64
}

// NewRetentionTracker starts tracking at revision rev, treating whatever
// history lies at or below it as written at now: its real age and size
// are unknown, so it is kept for a full MinAge, unless the changes
// observed afterwards pass MaxBytes on their own.
func NewRetentionTracker(r Retention, rev int64, now time.Time) *RetentionTracker {
	return &RetentionTracker{retention: r, spans: []span{{start: now, newest: now, last: rev}}}
}

// Observe records a change of size bytes at revision rev, seen at now.
func (t *RetentionTracker) Observe(rev int64, size int, now time.Time) {
	if n := len(t.spans); n > 0 && now.Sub(t.spans[n-1].start) < spanWidth && !t.full(t.spans[n-1]) {
		s := &t.spans[n-1]
		s.newest, s.last, s.bytes = now, rev, s.bytes+int64(size)
	} else {
		t.spans = append(t.spans, span{start: now, newest: now, last: rev, bytes: int64(size)})
	}
	t.bytes += int64(size)
}

// full reports whether s holds enough bytes to be closed under the byte
// bound.
func (t *RetentionTracker) full(s span) bool {
	return t.retention.MaxBytes > 0 && s.bytes >= t.retention.MaxBytes/spanSplit
}

// OverMax reports whether the tracked history is past MaxBytes, so that
// Compactable would release some of it now, whatever its age.
func (t *RetentionTracker) OverMax() bool {
	return t.retention.MaxBytes > 0 && t.bytes > t.retention.MaxBytes && len(t.spans) > 1
}

// Compactable returns the highest revision whose history may be dropped
// at now, or 0 when nothing may be, and forgets the history it releases.
// A span is released when it is older than MinAge and the history after
// it still holds at least MinBytes, or, past MaxBytes, until the history
// is back under MaxBytes less an eighth. The newest span is always kept.
func (t *RetentionTracker) Compactable(now time.Time) int64 {
	var target int64
	r := t.retention
	overMax := t.OverMax()
	for len(t.spans) > 1 {
		s := t.spans[0]
		aged := now.Sub(s.newest) > r.MinAge && t.bytes-s.bytes >= r.MinBytes
		if overMax {
			overMax = t.bytes > r.MaxBytes-r.MaxBytes/spanSplit
		}
		if !aged && !overMax {
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
				if !errors.Is(err, ErrUnavailable) {
					return err
				}
				// The store is out of reach for now: try again at the
				// next tick.
				log.Warn("compactor cannot reach the store, will retry", "err", err)
				select {
				case <-ctx.Done():
					return nil
				case <-ticker.C:
				}
				continue
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
			case ev.Type == Progress:
			default:
				tracker.Observe(ev.Revision, len(ev.Key)+len(ev.Value), time.Now())
				// History past its byte bound goes at once, not at the
				// next tick: a burst of large writes would otherwise
				// grow the store by what ten seconds of them hold.
				if tracker.OverMax() && !c.compact(ctx, tracker, log) {
					return nil
				}
			}
		case <-ticker.C:
			if !c.compact(ctx, tracker, log) {
				return nil
			}
		}
	}
}

// compact compacts what tracker releases now. It returns false when the
// compactor must stop because ctx ended or the store closed; other
// failures are logged and the history is left to a later compaction.
func (c *Compactor) compact(ctx context.Context, tracker *RetentionTracker, log *slog.Logger) bool {
	target := tracker.Compactable(time.Now())
	if target == 0 {
		return true
	}
	if err := c.Store.Compact(ctx, target); err != nil {
		if ctx.Err() != nil || errors.Is(err, ErrClosed) {
			return false
		}
		log.Error("compaction failed", "revision", target, "err", err)
		return true
	}
	log.Debug("compacted", "revision", target)
	return true
}
