package workqueue

import (
	"sync"
	"sync/atomic"
)

// Sharding. Items are spread by hash over shards, each with its own lock
// and table, so that adds of different items do not wait for each other,
// and the table work (cache misses, on a large key space) runs in parallel
// instead of inside one global critical section.
const (
	shardBits = 5
	numShards = 1 << shardBits
)

// Up to idleCap idle entries (flags 0) per shard stay in the table, so
// that an item that comes back (the common case: the same objects are
// reconciled again and again) finds its entry in place instead of being
// re-inserted and re-allocated. Beyond that, Done removes an entry as
// soon as it is idle, while the entry is still in the worker's cache.
const idleCap = 64

type shard[T comparable] struct {
	mu sync.Mutex
	// tab indexes the shard's entries; it is replaced, never resized in
	// place, so readers without the lock load it once (see table).
	tab   atomic.Pointer[table[T]]
	nidle int     // entries marked idle
	proc  list[T] // processing entries by start time (metrics only)
	_     [64]byte

	// Written by every Done without the lock, so on a line apart from
	// tab, which every Add reads.
	dones atomic.Int64 // Dones that left an entry idle; see Queue.inFlight
	_     [64]byte
}

func (s *shard[T]) init() { s.tab.Store(newTable(0, &entry[T]{})) }

// find returns item's entry, or nil. Without the lock it is a hint (see
// table); with it, the answer.
func (s *shard[T]) find(item T, h uint64) *entry[T] { return s.tab.Load().find(item, h) }

// get returns item's entry, creating it (with extra bookkeeping if ext)
// if the table has none. The caller holds the lock, and must leave the
// entry queued or processing, or release it.
func (s *shard[T]) get(item T, h uint64, ext bool) *entry[T] {
	if e := s.find(item, h); e != nil {
		if e.idle {
			e.idle = false
			s.nidle--
		}
		return e
	}
	e := &entry[T]{item: item, hash: h, sh: s}
	if ext {
		e.x = &extra[T]{heapIdx: -1}
	}
	t := s.tab.Load()
	if t.full() {
		t = s.compact()
	}
	t.insert(e)
	return e
}

// idle records that a Done left an entry idle, without waiting for the
// lock: a worker blocked behind a producer can lose its processor for a
// whole time slice. If the lock is busy, the entry stays in the table
// unmarked, and the next compaction sorts it out.
func (s *shard[T]) idle(e *entry[T]) {
	s.dones.Add(1)
	if s.mu.TryLock() {
		s.release(e)
		s.mu.Unlock()
	}
}

// release marks e idle, or removes it if enough entries are idle already.
// The caller holds the lock. If e was queued again meanwhile (its flags
// are not 0), it is left alone.
func (s *shard[T]) release(e *entry[T]) {
	if e.idle || e.flags.Load() != 0 {
		return
	}
	if s.nidle < idleCap {
		e.idle = true
		s.nidle++
		return
	}
	s.tab.Load().remove(e)
}

// compact replaces the table by a copy without tombstones, keeping its
// busy entries and up to idleCap idle ones, and sized for them. The
// caller holds the lock, so no idle entry turns busy meanwhile (only a
// locked Add queues an idle entry; the lock-free transitions all start
// from processing). A dropped entry keeps flags 0 for ever, which is all
// that lock-free readers holding it look at.
func (s *shard[T]) compact() *table[T] {
	old := s.tab.Load()
	keep := make([]*entry[T], 0, old.live)
	s.nidle = 0
	for i := range old.slots {
		e := old.slots[i].e.Load()
		if e == nil || e == old.tomb {
			continue
		}
		// A dropped entry is marked idle too (though not counted), so
		// that a late release leaves it alone.
		e.idle = e.flags.Load() == 0
		if e.idle {
			if s.nidle == idleCap {
				continue
			}
			s.nidle++
		}
		keep = append(keep, e)
	}
	t := newTable(len(keep)+1, old.tomb)
	for _, e := range keep {
		t.insert(e)
	}
	s.tab.Store(t)
	return t
}
