package workqueue

import (
	"testing"
	"time"
)

// model is the queue's contract written as plainly as possible: a list of
// queued items, and per item whether it is processing or dirty. It also
// models priorities and the aging rule, against a clock in the test's
// hands.
type model struct {
	maxWait  time.Duration // 0: FIFO queue
	now      time.Duration
	seq      int
	queued   []mItem // in arrival order
	working  map[int]bool
	dirty    map[int]int // item -> priority to re-queue with
	shutdown bool
}

type mItem struct {
	key, prio, seq int
	readyAt        time.Duration
}

func newModel(maxWait time.Duration) *model {
	return &model{maxWait: maxWait, working: map[int]bool{}, dirty: map[int]int{}}
}

func (m *model) find(k int) int {
	for i, it := range m.queued {
		if it.key == k {
			return i
		}
	}
	return -1
}

func (m *model) enqueue(k, prio int) {
	m.queued = append(m.queued, mItem{key: k, prio: prio, seq: m.seq, readyAt: m.now})
	m.seq++
}

func (m *model) add(k, prio int) {
	if m.shutdown {
		return
	}
	if i := m.find(k); i >= 0 {
		m.queued[i].prio = max(m.queued[i].prio, prio)
		return
	}
	if m.working[k] {
		if p, ok := m.dirty[k]; ok {
			prio = max(p, prio)
		}
		m.dirty[k] = prio
		return
	}
	m.enqueue(k, prio)
}

func (m *model) get() int {
	pick := 0 // queued is in arrival order: 0 is the oldest
	if m.maxWait > 0 && m.now-m.queued[0].readyAt < m.maxWait {
		for i, it := range m.queued {
			if it.prio > m.queued[pick].prio {
				pick = i
			}
		}
	}
	it := m.queued[pick]
	m.queued = append(m.queued[:pick], m.queued[pick+1:]...)
	m.working[it.key] = true
	return it.key
}

func (m *model) done(k int) {
	if !m.working[k] {
		return
	}
	delete(m.working, k)
	if p, ok := m.dirty[k]; ok {
		delete(m.dirty, k)
		m.enqueue(k, p)
	}
}

// runOps interprets data as operations on both the queue and the model,
// three bytes at a time, and fails at the first difference.
func runOps(t *testing.T, data []byte, maxWait time.Duration) {
	c := newFakeClock()
	var q *Queue[int]
	if maxWait > 0 {
		q = &NewPriority(Options[int]{Clock: c}, maxWait).Queue
	} else {
		q = New(Options[int]{Clock: c})
	}
	m := newModel(maxWait)
	for i := 0; i+2 < len(data); i += 3 {
		op, k, arg := data[i]%8, int(data[i+1]%8), int(data[i+2])
		prio := 0
		if maxWait > 0 {
			prio = arg%5 - 2
		}
		switch op {
		case 0, 1, 2:
			q.add(k, prio)
			m.add(k, prio)
		case 3, 4:
			if len(m.queued) == 0 {
				continue // Get would block
			}
			got, shutdown := q.Get()
			want := m.get()
			if shutdown || got != want {
				t.Fatalf("op %d: Get() = %d, %v; want %d", i/3, got, shutdown, want)
			}
		case 5:
			q.Done(k)
			m.done(k)
		case 6:
			d := time.Duration(arg) * 10 * time.Millisecond
			c.Step(d)
			m.now += d
		case 7:
			if arg == 0 {
				q.ShutDown()
				m.shutdown = true
			}
		}
		if got, want := q.Len(), len(m.queued); got != want {
			t.Fatalf("op %d: Len() = %d, want %d", i/3, got, want)
		}
	}
}

func FuzzQueue(f *testing.F) {
	f.Add([]byte{0, 1, 0, 0, 2, 0, 3, 0, 0, 0, 1, 0, 5, 1, 0, 3, 0, 0})
	f.Add([]byte{0, 1, 0, 3, 0, 0, 0, 1, 0, 7, 0, 0, 5, 1, 0, 3, 0, 0, 5, 1, 0})
	f.Fuzz(func(t *testing.T, data []byte) { runOps(t, data, 0) })
}

func FuzzPriorityQueue(f *testing.F) {
	f.Add([]byte{0, 1, 0, 0, 2, 4, 6, 0, 200, 3, 0, 0, 0, 3, 1, 3, 0, 0})
	f.Add([]byte{0, 1, 4, 3, 0, 0, 0, 1, 3, 6, 0, 100, 5, 1, 0, 0, 2, 4, 3, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) { runOps(t, data, time.Second) })
}
