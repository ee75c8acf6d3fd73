package workqueue

import (
	"context"
	"fmt"
)

// DrainError is returned by ShutDownWithDrain when its context ends before
// every item in flight was Done.
type DrainError struct {
	// InFlight is the number of items still being processed.
	InFlight int
	// Err is the context's error.
	Err error
}

func (e *DrainError) Error() string {
	return fmt.Sprintf("workqueue: %d items still processing at shutdown: %v", e.InFlight, e.Err)
}

func (e *DrainError) Unwrap() error { return e.Err }

// ShutDown makes the queue ignore further adds, drops delayed adds, and
// wakes every parked Get. Items already queued are still handed out; once
// the queue is empty, Get returns shutdown true. ShutDown may be called
// more than once.
func (q *Queue[T]) ShutDown() {
	q.mu.Lock()
	q.shutDownLocked()
	q.mu.Unlock()
	q.delay.stop()
}

// ShutDownWithDrain shuts the queue down as ShutDown does, then waits until
// no item is being processed: every item handed out by Get has been marked
// Done. As in client-go, items still queued do not hold it up (workers
// keep getting them until the queue is empty). Cancel ctx to stop waiting:
// the error is then a *DrainError.
func (q *Queue[T]) ShutDownWithDrain(ctx context.Context) error {
	q.mu.Lock()
	q.shutDownLocked()
	if q.drained == nil {
		q.drained = make(chan struct{})
	}
	drained := q.drained
	q.mu.Unlock()
	q.delay.stop()
	q.draining.Store(true)
	q.checkDrained() // nothing may be in flight at all

	select {
	case <-drained:
		return nil
	case <-ctx.Done():
		return &DrainError{InFlight: int(q.inFlight()), Err: ctx.Err()}
	}
}

// ShuttingDown reports whether ShutDown or ShutDownWithDrain was called.
func (q *Queue[T]) ShuttingDown() bool { return q.stopped.Load() }

func (q *Queue[T]) shutDownLocked() {
	if q.closed {
		return
	}
	q.closed = true
	q.stopped.Store(true)
	// Parked Gets exist only when nothing is queued: all of them end.
	for w := q.waiters; w != nil; {
		next := w.next
		w.next, w.e = nil, nil
		w.signal()
		w = next
	}
	q.waiters = nil
}
