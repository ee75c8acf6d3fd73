package workqueue

import (
	"runtime"
	"time"
)

// spinTries is how many times a Get yields the processor, watching for an
// item, before it parks.
const spinTries = 16

// Get blocks until an item is ready and returns it, marked processing: no
// other Get returns it until Done is called for it. After ShutDown, Get
// keeps returning the items still queued and then returns shutdown true.
func (q *Queue[T]) Get() (item T, shutdown bool) {
	spun := false
	q.mu.Lock()
	for {
		if e := q.popLocked(); e != nil {
			if spun {
				q.spinning--
				q.passSpinLocked()
			}
			q.mu.Unlock()
			return q.start(e), false
		}
		if q.closed || spun || q.spinning > 0 {
			break
		}
		q.spinning++
		spun = true
		q.spinLocked()
	}
	if spun {
		q.spinning--
	}
	if q.closed {
		q.mu.Unlock()
		return item, true
	}
	for {
		w := q.pool.Get().(*waiter[T])
		w.next = q.waiters
		q.waiters = w
		q.mu.Unlock()

		<-w.wake
		e, spin := w.e, w.spin
		w.e, w.spin = nil, false
		q.pool.Put(w)
		if e != nil {
			return q.start(e), false
		}
		if !spin {
			return item, true // shut down
		}
		// Woken to take over spinning (see passSpinLocked); it was
		// counted as spinning by whoever woke it.
		q.mu.Lock()
		q.spinLocked()
		if e := q.popLocked(); e != nil {
			q.spinning--
			q.passSpinLocked()
			q.mu.Unlock()
			return q.start(e), false
		}
		q.spinning--
		if q.closed {
			q.mu.Unlock()
			return item, true
		}
	}
}

// spinLocked spins briefly, with mu held on entry and on return: the
// caller, counted in q.spinning, watches for an item instead of parking.
// When items arrive back to back, this saves the producer waking a parked
// worker, which costs far more than an Add.
func (q *Queue[T]) spinLocked() {
	q.spinHint.Store(false)
	q.mu.Unlock()
	for i := 0; i < spinTries && !q.spinHint.Load(); i++ {
		runtime.Gosched()
	}
	q.mu.Lock()
}

// passSpinLocked is called by a spinning Get that found an item: if
// workers are parked, one of them is woken to spin in its place, so that
// producers keep finding a spinning Get and never pay for a wake-up
// themselves; workers pay it, off the producers' path.
func (q *Queue[T]) passSpinLocked() {
	w := q.waiters
	if w == nil || q.spinning > 0 || q.closed {
		return
	}
	q.waiters = w.next
	w.next, w.e, w.spin = nil, nil, true
	q.spinning++
	w.signal()
}

// popLocked takes the next entry out of the ready set, or returns nil.
func (q *Queue[T]) popLocked() *entry[T] {
	if q.lenLocked() == 0 {
		return nil
	}
	q.popped++
	if q.prio != nil {
		return q.prio.pop(q.now())
	}
	return q.fifo.pop()
}

// start marks an entry just taken from the ready set as processing and
// returns its item.
//
// Without metrics this takes no shard lock: the entry is out of the ready
// set and flagged queued, a state in which no other goroutine writes its
// flags (Add only reads them, to deduplicate; Done ignores it), so a plain
// atomic store suffices. An Add that reads "queued" just before the store
// is absorbed by the processing about to start, which is what its caller
// wants; one that reads "processing" marks it dirty.
func (q *Queue[T]) start(e *entry[T]) T {
	sh := e.sh
	if q.fast {
		sh.inflight[e.hash%inflightSize].Store(e)
	}
	if q.metrics == nil {
		e.flags.Store(flagProcessing)
		return e.item
	}
	sh.mu.Lock()
	e.flags.Store(flagProcessing)
	now := q.now()
	waited := time.Duration(now - e.x.addedAt)
	e.x.startedAt = now
	sh.proc.pushBack(e)
	sh.mu.Unlock()
	q.metrics.Started(waited)
	return e.item
}
