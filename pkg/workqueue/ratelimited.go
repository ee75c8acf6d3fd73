package workqueue

// AddRateLimited adds item after the delay its rate limiter gives it: the
// retry path of a failed reconcile. Call Forget once item succeeds, or its
// backoff keeps growing.
func (q *Queue[T]) AddRateLimited(item T) { q.AddAfter(item, q.limiter.When(item)) }

// Forget clears item's failures in the rate limiter. It does not remove
// item from the queue.
func (q *Queue[T]) Forget(item T) { q.limiter.Forget(item) }

// NumRequeues returns the failures the rate limiter holds for item.
func (q *Queue[T]) NumRequeues(item T) int { return q.limiter.NumRequeues(item) }
