// Package gcpacer sets the garbage collector's growth target (GOGC) of a
// long-running process from its live heap. A fixed percentage wastes
// memory on a large heap (GOGC 100 lets 600 MB of live data take 1.2 GB)
// and time on a small one, where collections come often; the pacer asks
// for Percent of the live heap, but never less than Headroom bytes of
// growth, within MaxPercent. The server runs one beside everything else
// in its process.
package gcpacer

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Pacer adjusts GOGC as the live heap changes.
type Pacer struct {
	// Percent is the growth target of a large heap, as GOGC.
	Percent int
	// MaxPercent bounds the target of a small heap.
	MaxPercent int
	// Headroom is the least growth, in bytes, the target allows while
	// under MaxPercent.
	Headroom uint64
	// Interval is how often the live heap is read; 0 means a second.
	Interval time.Duration

	// live and set reach the runtime; tests replace them.
	live func() uint64
	set  func(percent int) int
}

// For returns the GOGC for a live heap of live bytes.
func (p Pacer) For(live uint64) int {
	if live == 0 {
		return p.MaxPercent
	}
	floor := int(min(p.Headroom*100/live, uint64(p.MaxPercent)))
	return min(max(p.Percent, floor), p.MaxPercent)
}

// Start sets GOGC from the live heap every Interval until ctx ends.
func (p Pacer) Start(ctx context.Context) error {
	interval := p.Interval
	if interval <= 0 {
		interval = time.Second
	}
	live, set := p.live, p.set
	if live == nil {
		live = liveHeap
	}
	if set == nil {
		set = debug.SetGCPercent
	}
	cur := 0
	apply := func() {
		if pct := p.For(live()); pct != cur {
			set(pct)
			cur = pct
		}
	}
	apply()
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			apply()
		}
	}
}

// liveHeapMetric is the heap the last collection marked live.
const liveHeapMetric = "/gc/heap/live:bytes"

func liveHeap() uint64 {
	s := []metrics.Sample{{Name: liveHeapMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
