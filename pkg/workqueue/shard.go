package workqueue

import (
	"sync"
	"sync/atomic"
)

// Sharding. Items are spread by hash over shards, each with its own lock
// and table, so that adds and dones of different items do not wait for
// each other, and the table lookups (cache misses, on a large key space)
// run in parallel instead of inside one global critical section.
const (
	shardBits = 5
	numShards = 1 << shardBits
)

// Up to idleCap idle entries per shard are kept in the table, so that an
// item that comes back (the common case: the same objects are reconciled
// again and again) finds its slot and entry in place instead of being
// deleted, re-inserted and re-allocated. Beyond that, an entry is deleted
// as soon as it is idle, while its slot is still in cache.
const idleCap = 64

// inflightSize is the number of in-flight slots per shard.
const inflightSize = 4

type shard[T comparable] struct {
	mu sync.Mutex
	// entries is keyed by the item's hash, computed once per call outside
	// any lock; the rare items sharing a hash are chained.
	entries map[uint64]*entry[T]
	nidle   int
	dones   int64   // Dones ever counted here; see Queue.inFlight
	proc    list[T] // processing entries by start time (metrics only)
	// inflight remembers entries handed out, by hash, so that Done
	// usually finds its entry without the lock or a table lookup: the
	// entry was just touched by the worker, the table slot may be cold.
	// Written by Get without the shard lock, hence atomic. A stale slot
	// is harmless: its entry's flags no longer say processing.
	inflight [inflightSize]atomic.Pointer[entry[T]]

	_ [64]byte // keep shard locks on separate cache lines
}

// lookup returns item's entry, or nil.
func (s *shard[T]) lookup(item T, h uint64) *entry[T] {
	for e := s.entries[h]; e != nil; e = e.chain {
		if e.item == item {
			return e
		}
	}
	return nil
}

// get returns item's entry, creating it (with extra bookkeeping if ext)
// or reviving an idle one. The caller must leave it queued or processing,
// or release it.
func (s *shard[T]) get(item T, h uint64, ext bool) *entry[T] {
	if e := s.lookup(item, h); e != nil {
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
	e.chain = s.entries[h]
	s.entries[h] = e
	return e
}

// release makes e idle if it is neither queued nor processing. Its flags
// are already 0, which is all that lock-free readers look at.
func (s *shard[T]) release(e *entry[T]) {
	if e.flags.Load() != 0 {
		return
	}
	if s.nidle < idleCap {
		e.idle = true
		s.nidle++
		return
	}
	s.remove(e)
}

// remove deletes an entry with flags 0 from the table. The entry itself
// is left to the garbage collector rather than reused: lock-free readers
// (the hot and in-flight slots) may still hold it, and rely on its item
// never changing and its flags staying 0.
func (s *shard[T]) remove(e *entry[T]) {
	if head := s.entries[e.hash]; head == e {
		if e.chain == nil {
			delete(s.entries, e.hash)
		} else {
			s.entries[e.hash] = e.chain
		}
	} else {
		for p := head; p != nil; p = p.chain {
			if p.chain == e {
				p.chain = e.chain
				break
			}
		}
	}
	e.chain = nil
}
