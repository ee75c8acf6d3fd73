package workqueue

import (
	"time"

	"github.com/setpoint-dev/setpoint/pkg/clock"
)

// RateLimiter decides how long a failed item waits before it is retried.
type RateLimiter[T comparable] interface {
	// When records a failure of item and returns how long to wait before
	// retrying it.
	When(item T) time.Duration
	// Forget clears item's failures, typically after it succeeded.
	Forget(item T)
	// NumRequeues returns the failures recorded for item.
	NumRequeues(item T) int
}

// client-go's controller defaults, kept so that retries pace the same.
const (
	DefaultBaseDelay = 5 * time.Millisecond
	DefaultMaxDelay  = 1000 * time.Second
	DefaultQPS       = 10
	DefaultBurst     = 100
)

// DefaultRateLimiter is the larger of a per-item exponential backoff
// (DefaultBaseDelay doubling up to DefaultMaxDelay) and a token bucket
// shared by all items (DefaultQPS, DefaultBurst) on c: one item's
// retries back off, and all retries together stay under 10 per second
// after a burst of 100. A nil c is the real clock.
func DefaultRateLimiter[T comparable](c clock.Clock) RateLimiter[T] {
	return MaxOf[T](
		NewItemExponential[T](DefaultBaseDelay, DefaultMaxDelay),
		NewTokenBucket[T](DefaultQPS, DefaultBurst, c),
	)
}

// MaxOf combines limiters: When asks all of them and returns the longest
// delay, Forget forgets in all, NumRequeues is the largest count.
func MaxOf[T comparable](limiters ...RateLimiter[T]) RateLimiter[T] {
	return maxOf[T](limiters)
}

type maxOf[T comparable] []RateLimiter[T]

func (m maxOf[T]) When(item T) time.Duration {
	var d time.Duration
	// Every limiter must see the failure, so no early exit.
	for _, l := range m {
		d = max(d, l.When(item))
	}
	return d
}

func (m maxOf[T]) Forget(item T) {
	for _, l := range m {
		l.Forget(item)
	}
}

func (m maxOf[T]) NumRequeues(item T) int {
	n := 0
	for _, l := range m {
		n = max(n, l.NumRequeues(item))
	}
	return n
}
