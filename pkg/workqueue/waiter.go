package workqueue

// waiter is a Get parked on an empty queue. The goroutine that next makes
// an entry ready hands it over directly: it takes the entry out of the
// ready path under the queue lock, stores it here and wakes the waiter, so
// the woken worker does not compete for the queue lock again.
type waiter[T comparable] struct {
	wake chan struct{} // capacity 1: the single hand-off never blocks
	next *waiter[T]    // stack of parked waiters
	e    *entry[T]     // set by the waker: the entry; nil at shutdown
}

func newWaiter[T comparable]() any { return &waiter[T]{wake: make(chan struct{}, 1)} }

// signal wakes the parked Get. Called at most once per parking, after the
// waiter has been removed from the stack, so it never blocks.
func (w *waiter[T]) signal() { w.wake <- struct{}{} }
