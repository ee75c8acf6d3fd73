package workqueue

import "time"

// DefaultMaxWait is the aging bound of a priority queue built with
// maxWait <= 0.
const DefaultMaxWait = 30 * time.Second

// PriorityQueue is a Queue whose ready items come out by priority, higher
// first, first in, first out among equals; Add, AddAfter and
// AddRateLimited use priority 0. Adding an item that is already queued,
// delayed or dirty keeps the highest priority asked for.
//
// Aging rule. A plain priority order starves low-priority items for as long
// as higher ones keep arriving (controller-runtime#3496 reports tens of
// minutes). So Get first looks at the item that has been ready the longest:
// if it has been ready for MaxWait or more, Get returns it whatever its
// priority; otherwise Get returns the highest-priority item. An item is
// "ready" from the moment it could be handed out: its Add, its delayed add
// coming due, or the Done that re-queues it.
//
// The bound this gives, whatever the priorities and the arrival rate:
// once an item has been ready for MaxWait, no item that became ready after
// it is handed out before it. Overdue items come out oldest first, so if
// no older item is overdue too, the very next Get after the item's
// MaxWait returns it: its wait is at most MaxWait plus the time until a
// worker next calls Get. Under overload (items older than MaxWait pile up)
// the queue degrades to first in, first out, which is the fairest order
// when not everything can be served in time.
type PriorityQueue[T comparable] struct {
	Queue[T]
}

// AddOptions are the options of PriorityQueue.AddWithOptions.
type AddOptions struct {
	// Priority orders ready items: higher first.
	Priority int
	// After delays the add, as AddAfter does.
	After time.Duration
	// RateLimited delays the add by the rate limiter, as AddRateLimited
	// does; with After also set, the longer delay wins.
	RateLimited bool
}

// NewPriority returns a priority queue whose aging bound is maxWait, or
// DefaultMaxWait if maxWait <= 0 (aging cannot be turned off: no item
// should wait forever).
func NewPriority[T comparable](opts Options[T], maxWait time.Duration) *PriorityQueue[T] {
	if maxWait <= 0 {
		maxWait = DefaultMaxWait
	}
	q := &PriorityQueue[T]{}
	q.init(opts, &prioReady[T]{maxWait: int64(maxWait)})
	return q
}

// AddWithPriority is Add with a priority.
func (q *PriorityQueue[T]) AddWithPriority(item T, priority int) { q.add(item, priority) }

// AddWithOptions adds item with a priority, optionally delayed or rate
// limited.
func (q *PriorityQueue[T]) AddWithOptions(item T, o AddOptions) {
	d := o.After
	if o.RateLimited {
		d = max(d, q.limiter.When(item))
	}
	if o.RateLimited || d > 0 {
		q.addAfter(item, o.Priority, d)
		return
	}
	q.add(item, o.Priority)
}

// prioReady is the ready set of a priority queue: a max-heap by (priority,
// arrival) for the normal order, and the same entries in a list by arrival
// for the aging rule, whose head is the item ready the longest. Both give
// O(log n) push and pop and O(1) access to what Get needs. Guarded by the
// queue lock.
type prioReady[T comparable] struct {
	heap     []*entry[T]
	old, new *entry[T] // the age list, oldest first, through aprev/anext
	seq      uint64
	maxWait  int64
}

func (p *prioReady[T]) len() int { return len(p.heap) }

func (p *prioReady[T]) push(e *entry[T], now int64) {
	e.x.readyAt, e.x.seq = now, p.seq
	p.seq++
	e.x.heapIdx = int32(len(p.heap))
	p.heap = append(p.heap, e)
	p.up(len(p.heap) - 1)
	e.x.aprev, e.x.anext = p.new, nil
	if p.new != nil {
		p.new.x.anext = e
	} else {
		p.old = e
	}
	p.new = e
}

// pop applies the aging rule; the set must not be empty.
func (p *prioReady[T]) pop(now int64) *entry[T] {
	e := p.heap[0]
	if now-p.old.x.readyAt >= p.maxWait {
		e = p.old
	}
	p.removeAt(int(e.x.heapIdx))
	if e.x.aprev != nil {
		e.x.aprev.x.anext = e.x.anext
	} else {
		p.old = e.x.anext
	}
	if e.x.anext != nil {
		e.x.anext.x.aprev = e.x.aprev
	} else {
		p.new = e.x.aprev
	}
	e.x.aprev, e.x.anext = nil, nil
	return e
}

// raise increases the priority of e in place, if e is in the heap (it may
// be on its way to a worker) and prio is higher.
func (p *prioReady[T]) raise(e *entry[T], prio int) {
	if e.x.heapIdx < 0 || prio <= e.x.prio {
		return
	}
	e.x.prio = prio
	p.up(int(e.x.heapIdx))
}

func (p *prioReady[T]) removeAt(i int) {
	h := p.heap
	last := len(h) - 1
	e := h[i]
	h[i] = h[last]
	h[i].x.heapIdx = int32(i)
	h[last] = nil
	p.heap = h[:last]
	if i < last {
		p.down(i)
		p.up(i)
	}
	e.x.heapIdx = -1
}

// before is the heap order: higher priority, then earlier arrival.
func before[T comparable](a, b *entry[T]) bool {
	if a.x.prio != b.x.prio {
		return a.x.prio > b.x.prio
	}
	return a.x.seq < b.x.seq
}

func (p *prioReady[T]) up(i int) {
	h := p.heap
	e := h[i]
	for i > 0 {
		parent := (i - 1) / 2
		if !before(e, h[parent]) {
			break
		}
		h[i] = h[parent]
		h[i].x.heapIdx = int32(i)
		i = parent
	}
	h[i] = e
	e.x.heapIdx = int32(i)
}

func (p *prioReady[T]) down(i int) {
	h := p.heap
	n := len(h)
	e := h[i]
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && before(h[r], h[c]) {
			c = r
		}
		if !before(h[c], e) {
			break
		}
		h[i] = h[c]
		h[i].x.heapIdx = int32(i)
		i = c
	}
	h[i] = e
	e.x.heapIdx = int32(i)
}
