package client

import (
	"context"
	"sync"
	"time"
)

// limiter is a token bucket for rest.Config's QPS and Burst. Servers
// with API Priority and Fairness throttle fairly on their side, so a
// zero QPS means no client-side limit (as controller-runtime does since
// 0.15), not client-go's old default of 5.
type limiter struct {
	mu     sync.Mutex
	qps    float64
	burst  float64
	tokens float64
	last   time.Time
}

// newLimiter returns nil (no limit) unless qps is positive.
func newLimiter(qps float32, burst int) *limiter {
	if qps <= 0 {
		return nil
	}
	b := float64(max(burst, 1))
	return &limiter{qps: float64(qps), burst: b, tokens: b, last: time.Now()}
}

// wait takes a token, sleeping until one is due.
func (l *limiter) wait(ctx context.Context) error {
	if l == nil {
		return ctx.Err()
	}
	l.mu.Lock()
	now := time.Now()
	l.tokens = min(l.burst, l.tokens+now.Sub(l.last).Seconds()*l.qps)
	l.last = now
	l.tokens--
	var delay time.Duration
	if l.tokens < 0 {
		delay = time.Duration(-l.tokens / l.qps * float64(time.Second))
	}
	l.mu.Unlock()
	if delay == 0 {
		return ctx.Err()
	}
	t := time.NewTimer(delay)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		// The request will not be sent: give the token back.
		l.mu.Lock()
		l.tokens++
		l.mu.Unlock()
		return ctx.Err()
	}
}
