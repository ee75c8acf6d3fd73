package workqueue

import "sync/atomic"

// Entry flags. Under the lock-free paths (see Queue.add, Queue.start and
// Queue.Done) they change without the shard lock, so they are atomic and
// every transition out of "processing" is a compare-and-swap.
const (
	flagQueued     uint32 = 1 << iota // in (or on its way into) the ready set
	flagProcessing                    // handed to a worker, Done not yet called
	flagDirty                         // added again while processing
)

// entry is the queue's bookkeeping for one item. There is exactly one
// live entry per item known to the queue, found through its shard's
// table, so each Add and each Done costs at most one lookup; the ready set
// holds pointers to entries and never looks anything up.
//
// An entry removed from its table is never reused: lock-free readers may
// still hold it, and rely on its item never changing and its flags staying
// 0 forever after.
type entry[T comparable] struct {
	// Set before the entry is published, never changed.
	item T
	hash uint64
	sh   *shard[T]
	x    *extra[T] // priority and metrics bookkeeping; nil when unused

	flags atomic.Uint32

	// Guarded by sh.mu.
	idle bool // neither queued nor processing, counted in sh.nidle
}

// extra is what only priority queues and queues with metrics need per
// item. Keeping it out of line halves a plain queue's entries.
type extra[T comparable] struct {
	// Guarded by sh.mu.
	dirtyPrio int   // priority to re-queue with when Done
	addedAt   int64 // when added, for the queue duration metric
	startedAt int64 // when handed out, for the work duration metric
	// prev and next link the entry into its shard's processing list.
	prev, next *entry[T]

	// Guarded by Queue.mu.
	prio    int    // priority in the ready set
	heapIdx int32  // index in the priority heap, or -1
	readyAt int64  // when it joined the ready set, for aging
	seq     uint64 // arrival order, first in first out among equals
	// aprev and anext link the entry into the priority queue's age list.
	aprev, anext *entry[T]
}

// list is an intrusive doubly linked list of entries through x.prev and
// x.next.
type list[T comparable] struct {
	head, tail *entry[T]
}

func (l *list[T]) pushBack(e *entry[T]) {
	e.x.prev, e.x.next = l.tail, nil
	if l.tail != nil {
		l.tail.x.next = e
	} else {
		l.head = e
	}
	l.tail = e
}

func (l *list[T]) remove(e *entry[T]) {
	if e.x.prev != nil {
		e.x.prev.x.next = e.x.next
	} else {
		l.head = e.x.next
	}
	if e.x.next != nil {
		e.x.next.x.prev = e.x.prev
	} else {
		l.tail = e.x.prev
	}
	e.x.prev, e.x.next = nil, nil
}
