package workqueue

import "sync/atomic"

// table is a shard's index of entries by hash: open addressing with linear
// probing, written under the shard lock and read without it. A lock-free
// read is what lets an Add of an item already queued (a burst of events)
// and a Done find their entry without the shard lock, for every item the
// queue knows, not only those a cache happens to hold.
//
// A slot goes from empty to an entry, from an entry to the tombstone that
// keeps later probes going, and from a tombstone to another entry; a
// table, once replaced by a compacted copy (see shard.compact), is never
// written again, so a reader holding any table finds empty slots to stop
// at. A reader's answer is a hint: an entry it finds is the item's live
// entry or one removed meanwhile, whose flags are 0 for ever (see entry);
// an entry it misses may have just been inserted. Callers act on a hit
// only if the flags say so, and take the shard lock on a miss or on flags
// 0.
type table[T comparable] struct {
	slots []slot[T] // len is a power of two
	mask  uint64
	tomb  *entry[T] // the shard's tombstone, shared by all its tables
	// Guarded by the shard lock.
	used int // slots not empty: entries and tombstones
	live int // slots holding an entry
}

// slot holds an entry and its hash, so that probing compares hashes
// without touching the entries it passes.
type slot[T comparable] struct {
	hash atomic.Uint64
	e    atomic.Pointer[entry[T]] // nil: empty
}

// minTable is the smallest table: a shard of a small queue fits in it.
const minTable = 16

// newTable returns an empty table with room for n entries at a quarter
// full, so that a burst of new items fills it only after many inserts.
func newTable[T comparable](n int, tomb *entry[T]) *table[T] {
	size := minTable
	for size < 4*n {
		size *= 2
	}
	return &table[T]{slots: make([]slot[T], size), mask: uint64(size - 1), tomb: tomb}
}

// full reports whether one more entry would fill t beyond half: past
// that, the probes of a missing item (every add of a new one) grow long.
func (t *table[T]) full() bool { return 2*(t.used+1) > len(t.slots) }

// find returns item's entry, or nil. Without the shard lock, it may miss
// an entry being inserted (see table).
func (t *table[T]) find(item T, h uint64) *entry[T] {
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		s := &t.slots[i]
		// The entry first: insert stores the hash before the entry, so
		// an entry seen here comes with its hash.
		e := s.e.Load()
		if e == nil {
			return nil
		}
		if s.hash.Load() == h && e != t.tomb && e.item == item {
			return e
		}
	}
}

// insert adds e, which must not be in t, in the first tombstone or
// empty slot on its probe sequence: under a churn of distinct items,
// tombstones are reused, and the table needs compacting only when empty
// slots run out. The caller holds the shard lock and has checked that t
// is not full.
func (t *table[T]) insert(e *entry[T]) {
	var free *slot[T]
	for i := e.hash & t.mask; ; i = (i + 1) & t.mask {
		s := &t.slots[i]
		old := s.e.Load()
		if old == t.tomb && free == nil {
			free = s
		}
		if old != nil {
			continue
		}
		if free == nil {
			free = s
			t.used++
		}
		t.live++
		// The hash first, as find expects.
		free.hash.Store(e.hash)
		free.e.Store(e)
		return
	}
}

// remove replaces e by the tombstone. The caller holds the shard lock.
func (t *table[T]) remove(e *entry[T]) {
	for i := e.hash & t.mask; ; i = (i + 1) & t.mask {
		switch s := &t.slots[i]; s.e.Load() {
		case e:
			s.e.Store(t.tomb)
			t.live--
			return
		case nil:
			return
		}
	}
}
