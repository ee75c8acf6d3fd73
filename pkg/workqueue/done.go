package workqueue

import "time"

// Done ends the processing of item. If item was added while it was being
// processed, it is queued again. Done for an item that is not being
// processed does nothing.
func (q *Queue[T]) Done(item T) {
	h := q.hash(item)
	sh := q.shard(h)
	var (
		ok     bool
		w      *waiter[T]
		worked time.Duration
	)
	if q.fast {
		ok, w = q.doneFast(sh, item, h)
	} else {
		ok, w, worked = q.doneLocked(sh, item, h)
	}
	if !ok {
		return
	}
	if q.draining.Load() {
		q.checkDrained()
	}
	if q.metrics != nil {
		q.metrics.Finished(worked)
	}
	if w != nil {
		w.signal()
	}
}

// doneFast is Done for queues on the lock-free paths. The entry is found
// without the lock: one being processed is always in the table. Ending the
// processing is a compare-and-swap, so that it cannot lose a concurrent
// lock-free Add that marks the entry dirty; a dirty entry is owned by its
// Done and re-queued without the shard lock.
func (q *Queue[T]) doneFast(sh *shard[T], item T, h uint64) (bool, *waiter[T]) {
	e := sh.find(item, h)
	if e == nil {
		// A Done with no order to its Get (a misuse) could miss the
		// entry without the lock.
		sh.mu.Lock()
		e = sh.find(item, h)
		sh.mu.Unlock()
		if e == nil {
			return false, nil
		}
	}
	if e.flags.CompareAndSwap(flagProcessing, 0) {
		sh.idle(e)
		return true, nil
	}
	if e.flags.Load() != flagProcessing|flagDirty {
		return false, nil // not being processed
	}
	w, _ := q.ready(e, 0, true)
	return true, w
}

// doneLocked is Done for priority queues and queues with metrics, whose
// per-item bookkeeping lives under the shard lock.
func (q *Queue[T]) doneLocked(sh *shard[T], item T, h uint64) (bool, *waiter[T], time.Duration) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	e := sh.find(item, h)
	if e == nil {
		return false, nil, 0
	}
	f := e.flags.Load()
	if f&flagProcessing == 0 {
		return false, nil, 0
	}
	var worked time.Duration
	if q.metrics != nil {
		worked = time.Duration(q.now() - e.x.startedAt)
		sh.proc.remove(e)
	}
	if f&flagDirty != 0 {
		w, _ := q.ready(e, e.x.dirtyPrio, true)
		return true, w, worked
	}
	e.flags.Store(0)
	sh.dones.Add(1)
	sh.release(e)
	return true, nil, worked
}

// inFlight counts the items handed out and not yet Done, without a shared
// counter on the hot path: hand-outs and re-queueing Dones are counted
// under the queue lock, other Dones in their shard's counter. Those are
// summed first: they never exceed the hand-outs counted after them, so
// equality means that nothing was in flight at the moment they were
// counted, and nothing was handed out since.
func (q *Queue[T]) inFlight() int64 {
	var dones int64
	for i := range q.shards {
		dones += q.shards[i].dones.Load()
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.popped - q.requeued - dones
}

// checkDrained ends a ShutDownWithDrain once nothing is in flight.
func (q *Queue[T]) checkDrained() {
	if q.inFlight() != 0 {
		return
	}
	q.mu.Lock()
	if q.drained != nil {
		close(q.drained)
		q.drained = nil
	}
	q.mu.Unlock()
}
