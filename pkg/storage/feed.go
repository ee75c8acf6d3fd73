package storage

import (
	"context"
	"errors"
	"strings"
	"sync"
)

// HistoryFunc reads committed changes for a watcher that is catching up:
// the events under prefix with revisions in (after, upTo], at most limit
// of them, and the highest revision it examined, so that the next read
// starts after it. A revision below the retained history is a
// *CompactedError.
type HistoryFunc func(prefix string, after, upTo int64, limit int) (events []Event, scanned int64, err error)

const (
	// liveBuffer is how many events a watcher may have pending before it
	// is dropped from live delivery and catches up from history instead.
	// Pointers keep the per-watcher buffer at 2 KiB.
	liveBuffer = 256
	// historyBatch bounds the events read from history in one step, so a
	// watcher far behind holds a bounded amount in memory.
	historyBatch = 512
)

// Feed fans committed events out to watchers for backends that keep their
// own log (bolt, memory). A watcher first replays history from the
// backend until it reaches the last published revision, then receives
// live events. A watcher whose consumer is too slow to keep up is not
// buffered without bound: it leaves live delivery and replays from history
// again, so it loses nothing unless that history is compacted meanwhile.
type Feed struct {
	history HistoryFunc

	mu       sync.Mutex
	rev      int64 // last published revision
	watchers map[*feedWatcher]struct{}
	closed   bool
	done     chan struct{}
	wg       sync.WaitGroup
}

type feedWatcher struct {
	prefix string
	live   chan *Event // owned by the feed while registered; closed on drop
}

// NewFeed returns a feed whose last published revision is rev.
func NewFeed(rev int64, history HistoryFunc) *Feed {
	return &Feed{history: history, rev: rev, watchers: map[*feedWatcher]struct{}{}, done: make(chan struct{})}
}

// Revision returns the last published revision.
func (f *Feed) Revision() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.rev
}

// Publish hands committed events to live watchers. Callers publish each
// revision once, in order, after it is durable; Publish never blocks.
func (f *Feed) Publish(events []Event) {
	if len(events) == 0 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	for i := range events {
		ev := &events[i]
		for w := range f.watchers {
			if !strings.HasPrefix(ev.Key, w.prefix) {
				continue
			}
			select {
			case w.live <- ev:
			default:
				// The consumer is behind: let it catch up from history.
				close(w.live)
				delete(f.watchers, w)
			}
		}
	}
	f.rev = events[len(events)-1].Revision
}

// Watch streams events under prefix after revision after until ctx ends
// or the feed closes. The caller checks compaction first; a compaction
// that overtakes a slow watcher ends it with an Err event.
func (f *Feed) Watch(ctx context.Context, prefix string, after int64) <-chan Event {
	out := make(chan Event)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		close(out)
		return out
	}
	f.wg.Add(1)
	go f.run(ctx, &feedWatcher{prefix: prefix}, after, out)
	return out
}

// Close ends every watch and waits for their goroutines.
func (f *Feed) Close() {
	f.mu.Lock()
	if !f.closed {
		f.closed = true
		for w := range f.watchers {
			close(w.live)
			delete(f.watchers, w)
		}
		close(f.done)
	}
	f.mu.Unlock()
	f.wg.Wait()
}

// run delivers to one watcher. next is the highest revision already
// handled (delivered or skipped); everything above it is still owed.
func (f *Feed) run(ctx context.Context, w *feedWatcher, next int64, out chan<- Event) {
	defer f.wg.Done()
	defer close(out)
	send := func(ev Event) bool {
		select {
		case out <- ev:
			return true
		case <-ctx.Done():
			return false
		case <-f.done:
			return false
		}
	}
	for {
		f.mu.Lock()
		if f.closed || ctx.Err() != nil {
			f.mu.Unlock()
			return
		}
		if next >= f.rev {
			w.live = make(chan *Event, liveBuffer)
			f.watchers[w] = struct{}{}
			live := w.live
			f.mu.Unlock()
			var ok bool
			if next, ok = f.follow(ctx, w, live, next, send); !ok {
				return
			}
			continue
		}
		upTo := f.rev
		f.mu.Unlock()
		events, scanned, err := f.history(w.prefix, next, upTo, historyBatch)
		if errors.Is(err, ErrClosed) {
			return // the store is shutting down: a clean end, not a failure
		}
		if err != nil {
			send(Event{Err: err})
			return
		}
		for _, ev := range events {
			if !send(ev) {
				return
			}
		}
		next = scanned
	}
}

// follow forwards live events until the feed drops the watcher (it returns
// the revision reached and true, to catch up) or the watch ends (false).
func (f *Feed) follow(ctx context.Context, w *feedWatcher, live <-chan *Event, next int64, send func(Event) bool) (int64, bool) {
	for {
		select {
		case ev, ok := <-live:
			if !ok {
				return next, true
			}
			if ev.Revision <= next {
				continue
			}
			if !send(*ev) {
				f.drop(w)
				return next, false
			}
			next = ev.Revision
		case <-ctx.Done():
			f.drop(w)
			return next, false
		}
	}
}

func (f *Feed) drop(w *feedWatcher) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.watchers[w]; ok {
		close(w.live)
		delete(f.watchers, w)
	}
}
