package workqueue

import (
	"runtime"
	"time"
)

// spinTries is how many times a spinning Get yields the processor,
// watching for an item, before it parks.
var spinTries = 16

// Get blocks until an item is ready and returns it, marked processing: no
// other Get returns it until Done is called for it. After ShutDown, Get
// keeps returning the items still queued and then returns shutdown true.
//
// A Get that finds the queue empty spins briefly before it parks, if no
// other Get is spinning: when items arrive back to back, as they do from
// busy producers, the spinning worker takes the next one without anybody
// paying for a wake-up, which costs far more than an Add. One spinner at a
// time bounds the processor time spent watching.
func (q *Queue[T]) Get() (item T, shutdown bool) {
	q.mu.Lock()
	if e := q.popLocked(); e != nil {
		q.mu.Unlock()
		return q.start(e), false
	}
	if !q.closed && q.spinning == 0 {
		q.spinning++
		q.spinLocked()
		q.spinning--
		if e := q.popLocked(); e != nil {
			q.mu.Unlock()
			return q.start(e), false
		}
	}
	if q.closed {
		q.mu.Unlock()
		return item, true
	}
	w := q.pool.Get().(*waiter[T])
	w.next = q.waiters
	q.waiters = w
	q.mu.Unlock()

	<-w.wake
	e := w.e
	w.e = nil
	q.pool.Put(w)
	if e == nil {
		return item, true // shut down
	}
	return q.start(e), false
}

// spinLocked spins briefly, with mu held on entry and on return: the
// caller, counted in q.spinning, watches for an item without the lock.
// ready sets spinHint when it leaves an item for the spinner.
func (q *Queue[T]) spinLocked() {
	q.spinHint.Store(false)
	q.mu.Unlock()
	for i := 0; i < spinTries && !q.spinHint.Load(); i++ {
		runtime.Gosched()
	}
	q.mu.Lock()
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
