package workqueue

import (
	"fmt"
	"sync"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/clock"
)

// TokenBucket paces all items together: it holds up to burst tokens,
// refilled at qps per second, and each When takes one. When the bucket is
// empty, When still takes a token "on credit" and returns how long until
// that token will have been refilled, so the n-th call beyond the burst
// waits n/qps. It keeps no per-item state: Forget does nothing and
// NumRequeues is 0.
//
// It is computed as a generic cell rate algorithm on integer nanoseconds
// of the injected clock, so tests get exact delays.
type TokenBucket[T comparable] struct {
	clock    clock.Clock
	epoch    time.Time
	interval int64 // nanoseconds to refill one token
	span     int64 // nanoseconds to refill the whole bucket

	mu sync.Mutex
	// tat is the time at which the bucket will be empty, given the
	// tokens taken so far: tokens(now) = min(burst, (now-tat)/interval).
	tat int64
}

// NewTokenBucket returns a bucket of burst tokens refilled at qps per
// second on c (nil is the real clock). It panics if qps <= 0 or burst < 1:
// such a limiter could never let anything through.
func NewTokenBucket[T comparable](qps float64, burst int, c clock.Clock) *TokenBucket[T] {
	if !(qps > 0) || burst < 1 {
		panic(fmt.Sprintf("workqueue: token bucket needs qps > 0 and burst >= 1, got %v and %d", qps, burst))
	}
	c = orReal(c)
	interval := max(int64(float64(time.Second)/qps), 1)
	span := interval * int64(burst)
	// Start full: empty one whole refill ago.
	return &TokenBucket[T]{clock: c, epoch: c.Now(), interval: interval, span: span, tat: -span}
}

// When takes a token and returns how long until it is available.
func (b *TokenBucket[T]) When(T) time.Duration {
	now := int64(b.clock.Now().Sub(b.epoch))
	b.mu.Lock()
	// A bucket cannot hold more than burst tokens: a tat further back
	// than one full refill counts as full.
	b.tat = max(b.tat, now-b.span) + b.interval
	wait := b.tat - now
	b.mu.Unlock()
	return time.Duration(max(wait, 0))
}

// Forget does nothing: the bucket is shared by all items.
func (b *TokenBucket[T]) Forget(T) {}

// NumRequeues is always 0: the bucket counts no item's failures.
func (b *TokenBucket[T]) NumRequeues(T) int { return 0 }
