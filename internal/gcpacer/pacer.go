// Package gcpacer sets the garbage collector's growth target (GOGC) of a
// long-running process from its live heap. A fixed percentage wastes
// memory on a large heap (GOGC 100 lets 600 MB of live data take 1.2 GB)
// and time on a small one, where collections come often; the pacer asks
// for Percent of the live heap, but never less than Headroom bytes of
// growth, within MaxPercent (BusyMaxPercent while it allocates fast).
// The server runs one beside everything else in its process.
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
	// Quiet is the allocation, in bytes per Interval, under which the
	// process counts as idle. When it goes idle, the memory its busy
	// spell took (a start writing the default objects and filling every
	// cache, a burst of requests) is returned to the OS at once: the
	// runtime would otherwise keep it mapped as room for the next
	// spell. 0 returns nothing early.
	Quiet uint64
	// Busy is the allocation, in bytes per Interval, at or over which
	// the process counts as busy; while it is, BusyMaxPercent replaces
	// MaxPercent when higher. A busy small heap is otherwise collected
	// every few milliseconds, while an idle one would let its slow
	// trickle of garbage pile up under the same target. 0 disables it.
	Busy           uint64
	BusyMaxPercent int

	// live, set, allocs and release reach the runtime; tests replace
	// them.
	live    func() uint64
	set     func(percent int) int
	allocs  func() uint64
	release func()
}

// For returns the GOGC for a live heap of live bytes.
func (p Pacer) For(live uint64) int {
	return p.target(live, false)
}

// target is For, for a process that is busy or not.
func (p Pacer) target(live uint64, busy bool) int {
	if busy {
		p.MaxPercent = max(p.MaxPercent, p.BusyMaxPercent)
	}
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
	allocs, release := p.allocs, p.release
	if allocs == nil {
		allocs = allocated
	}
	if release == nil {
		release = debug.FreeOSMemory
	}
	cur := 0
	apply := func(busy bool) {
		if pct := p.target(live(), busy); pct != cur {
			set(pct)
			cur = pct
		}
	}
	apply(false)
	// idle is set once the memory of the last busy spell was returned,
	// so an idle process pays for one collection, not one a tick.
	last, idle := allocs(), false
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		now := allocs()
		spent := now - last
		last = now
		apply(p.Busy > 0 && spent >= p.Busy)
		if p.Quiet == 0 {
			continue
		}
		quiet := spent < p.Quiet
		switch {
		case quiet && !idle:
			release()
			idle = true
		case !quiet:
			idle = false
		}
	}
}

// allocsMetric counts every byte the heap has handed out.
const allocsMetric = "/gc/heap/allocs:bytes"

func allocated() uint64 { return readUint64(allocsMetric) }

// liveHeapMetric is the heap the last collection marked live.
const liveHeapMetric = "/gc/heap/live:bytes"

func liveHeap() uint64 { return readUint64(liveHeapMetric) }

func readUint64(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
