package workqueue

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/clock"
)

// Queue is a deduplicating, delaying, rate-limited work queue of items of
// type T, typically object keys. It is safe for concurrent use. The zero
// value is not usable; call New or NewPriority.
//
// The life of an item: Add queues it (once, however often it is added);
// Get hands it to one worker and marks it processing; Done ends the
// processing, and queues it again if it was added meanwhile.
//
// Locking: each item's state lives in a shard (see shard.go) under the
// shard's lock, with lock-free reads and flag transitions on the fast
// paths (see table.go and entry.go); the ready set, parked Gets and shutdown live under mu. A
// goroutine holding a shard lock may take mu, never the reverse, and no
// call holds two shard locks. The delayed adds have their own lock (see
// delay.go), never held with another.
type Queue[T comparable] struct {
	// Read by every call and written at most at shutdown: kept on cache
	// lines of their own, away from the lines that the queue lock, the
	// shards and the counters keep writing, so that reading them costs
	// no cache miss.
	seed     maphash.Seed
	prio     *prioReady[T] // ready set of a priority queue; nil for FIFO
	metrics  QueueMetrics  // nil when metrics are off
	stopped  atomic.Bool   // closed, readable without mu
	draining atomic.Bool   // a ShutDownWithDrain is waiting
	// fast enables the lock-free paths of Add, Get and Done. They need
	// no per-item bookkeeping beyond the flags, so they are for plain
	// FIFO queues without metrics: the default, and the hot path.
	fast bool
	_    [64]byte

	shards [numShards]shard[T]

	mu       sync.Mutex
	fifo     ring[T]       // ready set of a FIFO queue
	waiters  *waiter[T]    // parked Gets; see ready for when
	spinning int           // Gets spinning before they park: 0 or 1
	popped   int64         // entries ever handed out; see inFlight
	requeued int64         // Dones that re-queued; see inFlight
	closed   bool          // shutting down
	drained  chan struct{} // closed once nothing is in flight while draining
	spinHint atomic.Bool   // set when an item is queued for a spinning Get
	_        [64]byte

	delay   delayQueue[T]
	pool    sync.Pool      // of *waiter[T]
	clock   clock.Clock    // time source for delays, aging and metrics
	epoch   time.Time      // times are kept as int64 nanoseconds since epoch
	limiter RateLimiter[T] // AddRateLimited's delays
}

// New returns a first-in, first-out queue.
func New[T comparable](opts Options[T]) *Queue[T] {
	q := &Queue[T]{}
	q.init(opts, nil)
	return q
}

func (q *Queue[T]) init(opts Options[T], prio *prioReady[T]) {
	q.prio = prio
	q.seed = maphash.MakeSeed()
	for i := range q.shards {
		q.shards[i].init()
	}
	q.delay.index = make(map[T]*delayed[T])
	q.pool.New = newWaiter[T]
	q.clock = orReal(opts.Clock)
	q.epoch = q.clock.Now()
	q.limiter = opts.RateLimiter
	if q.limiter == nil {
		q.limiter = DefaultRateLimiter[T](q.clock)
	}
	if opts.Name != "" && opts.Metrics != nil {
		q.metrics = opts.Metrics.NewQueueMetrics(opts.Name, q.stats)
	}
	q.fast = q.prio == nil && q.metrics == nil
}

// hash is computed once per call, outside any lock: its top bits pick the
// shard, its low bits the slot in the shard's table.
func (q *Queue[T]) hash(item T) uint64 { return maphash.Comparable(q.seed, item) }

func (q *Queue[T]) shard(h uint64) *shard[T] { return &q.shards[h>>(64-shardBits)] }

// Add queues item unless it is already queued. If item is being processed,
// it is marked to be queued again when Done is called for it. After
// ShutDown, Add does nothing.
func (q *Queue[T]) Add(item T) { q.add(item, 0) }

func (q *Queue[T]) add(item T, prio int) {
	if q.stopped.Load() {
		return
	}
	h := q.hash(item)
	if q.fast && q.addFast(item, h) {
		return
	}
	sh := q.shard(h)
	sh.mu.Lock()
	e := sh.get(item, h, !q.fast)
	var (
		added bool
		w     *waiter[T]
	)
	for {
		f := e.flags.Load()
		if f&flagQueued != 0 {
			// Already queued: deduplicated. A priority queue keeps the
			// highest priority asked for.
			if q.prio != nil {
				q.mu.Lock()
				q.prio.raise(e, prio)
				q.mu.Unlock()
			}
		} else if f&flagDirty != 0 {
			if e.x != nil {
				e.x.dirtyPrio = max(e.x.dirtyPrio, prio)
			}
		} else if f&flagProcessing != 0 {
			// Never hand an item to a second worker: remember the add
			// and let Done queue it. A lock-free Done may be ending the
			// processing right now: then look again.
			if !e.flags.CompareAndSwap(f, f|flagDirty) {
				continue
			}
			if e.x != nil {
				e.x.dirtyPrio = prio
			}
			q.markAdded(e)
			added = true
		} else {
			// Idle or new. Nothing changes these flags without the
			// shard lock, which we hold.
			var ok bool
			if w, ok = q.ready(e, prio, false); ok {
				q.markAdded(e)
				added = true
			} else {
				sh.release(e) // lost a race with ShutDown
			}
		}
		break
	}
	sh.mu.Unlock()
	if added && q.metrics != nil {
		q.metrics.Added()
	}
	if w != nil {
		w.signal()
	}
}

// addFast is Add's lock-free path, for an item already queued, or being
// processed (then it is marked dirty with a compare-and-swap). It reports
// whether it handled the add. Under a burst of events for the same
// objects, this is nearly every add: a table probe, no lock, no write to
// shared memory unless marking dirty.
func (q *Queue[T]) addFast(item T, h uint64) bool {
	e := q.shard(h).find(item, h)
	if e == nil {
		return false
	}
	for {
		switch f := e.flags.Load(); f {
		case flagQueued, flagProcessing | flagDirty:
			return true
		case flagProcessing:
			if e.flags.CompareAndSwap(f, f|flagDirty) {
				return true
			}
		default:
			return false
		}
	}
}

// ready queues e with priority prio: it hands e straight to a parked Get
// if there is one (returned, to be signalled once the caller has released
// its locks), or puts it in the ready set. While Gets are parked, the
// ready set holds at most one entry per spinning Get, which that Get is
// about to take, so a hand-off overtakes no entry that waits for a worker.
//
// The caller either holds e's shard lock and found e idle or new, or is
// Done re-queueing a dirty e (requeue), which it owns: nobody else writes
// the flags of a dirty entry. After ShutDown only a re-queue is accepted,
// as in client-go; ok reports whether e was queued.
func (q *Queue[T]) ready(e *entry[T], prio int, requeue bool) (w *waiter[T], ok bool) {
	// Flag it before it becomes visible to Get, and outside the queue
	// lock to keep that critical section short. Meanwhile a lock-free
	// Add sees it queued and is absorbed, which is right: it will be.
	e.flags.Store(flagQueued)
	q.mu.Lock()
	if q.closed && !requeue {
		q.mu.Unlock()
		e.flags.Store(0)
		return nil, false
	}
	if requeue {
		q.requeued++
	}
	w = q.waiters
	if w == nil || q.lenLocked() < q.spinning {
		// Nobody parked, or a spinning Get will take it: no wake-up.
		// While Gets are parked, the ready set holds no more entries
		// than there are spinners to take them.
		if q.prio != nil {
			e.x.prio = prio
			q.prio.push(e, q.now())
		} else {
			q.fifo.push(e)
		}
		if q.spinning > 0 {
			q.spinHint.Store(true)
		}
		w = nil
	} else {
		q.waiters = w.next
		w.next, w.e = nil, e
		q.popped++
	}
	q.mu.Unlock()
	return w, true
}

// Len returns the number of items ready for Get. Items being processed or
// waiting for a delayed add are not counted.
func (q *Queue[T]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.lenLocked()
}

func (q *Queue[T]) lenLocked() int {
	if q.prio != nil {
		return q.prio.len()
	}
	return q.fifo.n
}

// markAdded records when e was added, for the queue duration metric.
func (q *Queue[T]) markAdded(e *entry[T]) {
	if q.metrics != nil {
		e.x.addedAt = q.now()
	}
}

func (q *Queue[T]) now() int64 { return int64(q.clock.Now().Sub(q.epoch)) }
