package workqueue

import (
	"math"
	"sync"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/clock"
)

// delayFreeCap bounds the recycled records of fired delayed adds.
const delayFreeCap = 64

// delayQueue holds the adds waiting for their time: a min-heap by due
// time, deduplicated by item, under its own lock so that delayed adds
// never contend with the ready path. When the earliest is due, a timer
// moves every due item into the queue as a plain add.
type delayQueue[T comparable] struct {
	mu      sync.Mutex
	heap    []*delayed[T]
	index   map[T]*delayed[T]
	free    []*delayed[T] // recycled records, at most delayFreeCap
	timer   clock.Timer   // fires when heap[0] is due
	armed   bool
	timerAt int64
	batch   []delayed[T] // reused by fire
	stopped bool
}

// delayed is one waiting add.
type delayed[T comparable] struct {
	item T
	at   int64 // due time, nanoseconds since the queue's epoch
	prio int
	idx  int
}

// AddAfter adds item once d has elapsed on the queue's clock; with d <= 0
// it is Add. If item is already waiting, the earlier of the two due times
// wins. Waiting does not stop item from being queued or processed in the
// meantime: the delayed add happens anyway, as a normal Add. It counts in
// workqueue_retries_total, as in client-go.
func (q *Queue[T]) AddAfter(item T, d time.Duration) { q.addAfter(item, 0, d) }

func (q *Queue[T]) addAfter(item T, prio int, d time.Duration) {
	if q.stopped.Load() {
		return
	}
	if q.metrics != nil {
		q.metrics.Retried()
	}
	if d <= 0 {
		q.add(item, prio)
		return
	}
	now := q.now()
	at := now + int64(d)
	if at < now { // overflow: due never, in practice
		at = math.MaxInt64
	}
	dq := &q.delay
	dq.mu.Lock()
	if dq.stopped {
		dq.mu.Unlock()
		return
	}
	if w := dq.index[item]; w != nil {
		if at < w.at {
			w.at = at
			dq.up(w.idx)
		}
		w.prio = max(w.prio, prio)
	} else {
		var w *delayed[T]
		if n := len(dq.free); n > 0 {
			w, dq.free = dq.free[n-1], dq.free[:n-1]
		} else {
			w = &delayed[T]{}
		}
		w.item, w.at, w.prio = item, at, prio
		dq.index[item] = w
		dq.push(w)
	}
	q.armLocked(now)
	dq.mu.Unlock()
}

// armLocked sets the timer for the earliest delayed add, unless it is
// already set to fire no later. One timer per queue, re-armed rather than
// re-created, keeps AddAfter allocation-free and needs no goroutine of its
// own: the queue owns no goroutine that could outlive it.
func (q *Queue[T]) armLocked(now int64) {
	dq := &q.delay
	if len(dq.heap) == 0 {
		return
	}
	at := dq.heap[0].at
	if dq.armed && dq.timerAt <= at {
		return
	}
	d := time.Duration(max(at-now, 0))
	if dq.timer == nil {
		dq.timer = q.clock.AfterFunc(d, q.fire)
	} else {
		dq.timer.Reset(d)
	}
	dq.armed, dq.timerAt = true, at
}

// fire adds every delayed item that is due and re-arms the timer. A fire
// that finds nothing due (the timer was moved while it was starting) just
// re-arms.
func (q *Queue[T]) fire() {
	dq := &q.delay
	dq.mu.Lock()
	dq.armed = false
	if dq.stopped {
		dq.mu.Unlock()
		return
	}
	now := q.now()
	batch := dq.batch[:0]
	dq.batch = nil // a concurrent fire allocates its own
	for len(dq.heap) > 0 && dq.heap[0].at <= now {
		w := dq.pop()
		delete(dq.index, w.item)
		batch = append(batch, *w)
		*w = delayed[T]{}
		if len(dq.free) < delayFreeCap {
			dq.free = append(dq.free, w)
		}
	}
	q.armLocked(now)
	dq.mu.Unlock()

	// The adds take shard locks: never under the delay lock.
	for i := range batch {
		q.add(batch[i].item, batch[i].prio)
		batch[i] = delayed[T]{}
	}
	dq.mu.Lock()
	dq.batch = batch[:0]
	dq.mu.Unlock()
}

// stop drops every waiting add and stops the timer, for ShutDown.
func (dq *delayQueue[T]) stop() {
	dq.mu.Lock()
	defer dq.mu.Unlock()
	dq.stopped = true
	if dq.timer != nil {
		dq.timer.Stop()
	}
	dq.armed = false
	clear(dq.heap)
	dq.heap = nil
	clear(dq.index)
}

func (dq *delayQueue[T]) push(w *delayed[T]) {
	w.idx = len(dq.heap)
	dq.heap = append(dq.heap, w)
	dq.up(w.idx)
}

func (dq *delayQueue[T]) pop() *delayed[T] {
	h := dq.heap
	w := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h[0].idx = 0
	h[last] = nil
	dq.heap = h[:last]
	if last > 0 {
		dq.down(0)
	}
	return w
}

func (dq *delayQueue[T]) up(i int) {
	h := dq.heap
	w := h[i]
	for i > 0 {
		p := (i - 1) / 2
		if h[p].at <= w.at {
			break
		}
		h[i] = h[p]
		h[i].idx = i
		i = p
	}
	h[i] = w
	w.idx = i
}

func (dq *delayQueue[T]) down(i int) {
	h := dq.heap
	n := len(h)
	w := h[i]
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && h[r].at < h[c].at {
			c = r
		}
		if w.at <= h[c].at {
			break
		}
		h[i] = h[c]
		h[i].idx = i
		i = c
	}
	h[i] = w
	w.idx = i
}
