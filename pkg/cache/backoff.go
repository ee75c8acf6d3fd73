package cache

import "time"

// Backoff spaces out retries after failures: the delay starts at Initial,
// doubles up to Max, and gets up to Jitter times itself added at random
// (never beyond Max) so that many clients of a restarted server do not
// retry in step. After ResetAfter without a failure it starts over.
type Backoff struct {
	Initial, Max, ResetAfter time.Duration
	Jitter                   float64
}

// DefaultBackoff is client-go's reflector backoff: 800 ms doubling to
// 30 s, reset after 2 minutes healthy.
var DefaultBackoff = Backoff{Initial: 800 * time.Millisecond, Max: 30 * time.Second, ResetAfter: 2 * time.Minute, Jitter: 1}

// backoffTimer tracks consecutive failures.
type backoffTimer struct {
	cfg   Backoff
	clock Clock
	rand  func() float64

	base  time.Duration // the next un-jittered delay; 0 before any failure
	until time.Time     // when the last delay ends, i.e. the healthy period starts
}

// next returns the delay before the next retry.
func (b *backoffTimer) next() time.Duration {
	now := b.clock.Now()
	if b.base == 0 || now.Sub(b.until) >= b.cfg.ResetAfter {
		b.base = b.cfg.Initial
	}
	d := b.base
	b.base = min(2*b.base, b.cfg.Max)
	d = min(d+time.Duration(b.rand()*b.cfg.Jitter*float64(d)), b.cfg.Max)
	b.until = now.Add(d)
	return d
}
