package cache

import (
	"context"
	"strconv"
	"sync"
)

// progress is the newest resourceVersion whose state a store holds: the
// version of the last event applied, a bookmark, or a completed listing.
// It is how a writer waits until the cache has seen its own write
// ("read your writes") without polling.
//
// resourceVersions are opaque to clients in general, but every API
// server in use (kube-apiserver on etcd, Setpoint) issues them as
// increasing integers from one counter per storage, so they compare as
// numbers. A version that does not parse as one is never waited for.
type progress struct {
	mu      sync.Mutex
	rv      uint64
	waiters map[chan struct{}]uint64
}

// advance records that the store has applied everything up to rv.
func (p *progress) advance(rv string) {
	n, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if n <= p.rv {
		return
	}
	p.rv = n
	for ch, want := range p.waiters {
		if want <= n {
			close(ch)
			delete(p.waiters, ch)
		}
	}
}

// current is the newest resourceVersion applied, "" before any.
func (p *progress) current() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.rv == 0 {
		return ""
	}
	return strconv.FormatUint(p.rv, 10)
}

// wait blocks until the store has applied rv or ctx ends.
func (p *progress) wait(ctx context.Context, rv string) error {
	n, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		return nil
	}
	p.mu.Lock()
	if n <= p.rv {
		p.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	if p.waiters == nil {
		p.waiters = map[chan struct{}]uint64{}
	}
	p.waiters[ch] = n
	p.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		p.mu.Lock()
		delete(p.waiters, ch)
		p.mu.Unlock()
		return ctx.Err()
	}
}
