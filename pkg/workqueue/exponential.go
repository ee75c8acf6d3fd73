package workqueue

import (
	"sync"
	"time"
)

// ItemExponential delays each item by base doubled once per recorded
// failure of that item, capped at max: base, 2·base, 4·base, ..., max.
// Forget starts the item over at base.
type ItemExponential[T comparable] struct {
	base, max time.Duration

	mu       sync.Mutex
	failures map[T]int
}

// NewItemExponential returns a per-item exponential backoff from base to
// max.
func NewItemExponential[T comparable](base, max time.Duration) *ItemExponential[T] {
	return &ItemExponential[T]{base: base, max: max, failures: make(map[T]int)}
}

// When records a failure of item and returns base·2^(failures before it),
// at most max.
func (r *ItemExponential[T]) When(item T) time.Duration {
	r.mu.Lock()
	n := r.failures[item]
	r.failures[item] = n + 1
	r.mu.Unlock()
	return backoff(r.base, r.max, n)
}

// Forget clears item's failures.
func (r *ItemExponential[T]) Forget(item T) {
	r.mu.Lock()
	delete(r.failures, item)
	r.mu.Unlock()
}

// NumRequeues returns item's recorded failures.
func (r *ItemExponential[T]) NumRequeues(item T) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failures[item]
}

// backoff returns base·2^n capped at limit, without overflowing.
func backoff(base, limit time.Duration, n int) time.Duration {
	if base <= 0 {
		return 0
	}
	if n >= 63 || base > limit>>n {
		return max(limit, 0)
	}
	return min(base<<n, limit)
}
