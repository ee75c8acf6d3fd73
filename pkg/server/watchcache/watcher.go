package watchcache

import (
	"errors"
	"sync"
)

// ErrTooSlow ends a watcher that fell a whole buffer behind.
var ErrTooSlow = errors.New("watchcache: watcher fell too far behind")

// WatchOptions choose where a watch starts.
type WatchOptions struct {
	// Namespace limits events to one namespace; "" is all.
	Namespace string
	// Initial asks for the current objects (Watcher.Initial) followed by
	// every later event. Otherwise the watch starts after After.
	Initial bool
	// After is the revision the client has seen; events after it are
	// delivered. Ignored with Initial.
	After int64
}

// Watcher is one registered watch. Deliver Initial, then Replay, then
// what arrives on C; C is closed when the watch ends, and Err says why.
type Watcher struct {
	cache     *Cache
	namespace string
	ch        chan *Event

	// Initial holds the current objects of an Initial watch, in key
	// order, true at InitialRevision.
	Initial         []*Object
	InitialRevision int64
	// Replay holds logged events after WatchOptions.After.
	Replay []*Event

	mu     sync.Mutex
	err    error
	closed bool
}

// C delivers live events in revision order.
func (w *Watcher) C() <-chan *Event { return w.ch }

// Err is why C was closed, or nil after Stop.
func (w *Watcher) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// end closes the watcher with a reason; the caller holds w.cache.mu.
func (w *Watcher) end(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.closed {
		w.closed, w.err = true, err
		close(w.ch)
	}
}

// Stop unregisters the watcher. It is safe to call more than once.
func (w *Watcher) Stop() {
	w.cache.mu.Lock()
	defer w.cache.mu.Unlock()
	delete(w.cache.watchers, w)
	w.end(nil)
}

// Watch registers a watcher. Registration and the snapshot it starts
// from happen under one lock, so no event falls between them.
func (c *Cache) Watch(opts WatchOptions) (*Watcher, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.removed {
		return nil, ErrRemoved
	}
	w := &Watcher{cache: c, namespace: opts.Namespace, ch: make(chan *Event, c.limits.WatchBuffer)}
	if opts.Initial {
		w.InitialRevision = c.revLocked()
		ns := c.prefix
		if opts.Namespace != "" {
			ns += opts.Namespace + "/"
		}
		w.Initial = make([]*Object, 0, len(c.objects))
		for k, o := range c.objects {
			if len(k) >= len(ns) && k[:len(ns)] == ns {
				w.Initial = append(w.Initial, o)
			}
		}
		sortByKey(w.Initial)
	} else {
		if opts.After < c.logStart {
			return nil, ErrExpired
		}
		// The log is in revision order: find the first event after
		// opts.After.
		log := c.events()
		i := searchLog(log, opts.After)
		for _, ev := range log[i:] {
			if opts.Namespace == "" || ev.Object.Namespace == opts.Namespace {
				w.Replay = append(w.Replay, ev)
			}
		}
	}
	c.watchers[w] = struct{}{}
	return w, nil
}

// Oldest is the oldest revision a watch can start after.
func (c *Cache) Oldest() int64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.logStart
}

// Revision is the revision the cache's content is true at.
func (c *Cache) Revision() int64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.revLocked()
}

func searchLog(log []*Event, after int64) int {
	lo, hi := 0, len(log)
	for lo < hi {
		m := (lo + hi) / 2
		if log[m].Revision <= after {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}
