package workqueue

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

func TestPriorityOrder(t *testing.T) {
	type add struct {
		item string
		prio int
	}
	tests := []struct {
		name string
		adds []add
		want []string
	}{
		{"higher first", []add{{"low", -1}, {"mid", 0}, {"high", 5}}, []string{"high", "mid", "low"}},
		{"fifo among equals", []add{{"a", 1}, {"b", 1}, {"c", 1}}, []string{"a", "b", "c"}},
		{"re-add raises", []add{{"a", 0}, {"b", 1}, {"a", 2}}, []string{"a", "b"}},
		{"re-add never lowers", []add{{"a", 2}, {"b", 1}, {"a", 0}}, []string{"a", "b"}},
		{"raised item keeps its arrival among equals", []add{{"a", 0}, {"b", 1}, {"a", 1}}, []string{"a", "b"}},
		{"negative priorities", []add{{"a", -100}, {"b", -5}, {"c", -100}}, []string{"b", "a", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := NewPriority(Options[string]{}, time.Hour)
			for _, a := range tt.adds {
				q.AddWithPriority(a.item, a.prio)
			}
			if got := drain(&q.Queue); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPriorityDirtyKeepsHighestPriority(t *testing.T) {
	q := NewPriority(Options[string]{}, time.Hour)
	q.AddWithPriority("a", 0)
	item, _ := q.Get()
	q.AddWithPriority("a", 3) // dirty
	q.AddWithPriority("a", 1) // still 3
	q.AddWithPriority("b", 2)
	q.Done(item)
	if got, want := drain(&q.Queue), []string{"a", "b"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestPriorityAddWithOptions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		q := NewPriority(Options[string]{RateLimiter: NewItemExponential[string](2*time.Second, time.Minute)}, time.Hour)
		q.AddWithOptions("delayed-high", AddOptions{Priority: 10, After: time.Second})
		q.AddWithOptions("limited", AddOptions{Priority: 5, RateLimited: true}) // 2s
		q.AddWithOptions("limited-after", AddOptions{Priority: 1, RateLimited: true, After: 3 * time.Second})
		q.AddWithOptions("now", AddOptions{Priority: -1})
		// Nothing takes items until all are due, so order is by priority.
		time.Sleep(5 * time.Second)
		got := collect(&q.Queue, start)
		synctest.Wait()
		q.ShutDown()
		want := []arrival{{"delayed-high", 5 * time.Second}, {"limited", 5 * time.Second}, {"limited-after", 5 * time.Second}, {"now", 5 * time.Second}}
		if g := <-got; !slices.Equal(g, want) {
			t.Errorf("arrivals = %v, want %v", g, want)
		}
	})
}

// The aging bound, exactly: a low-priority item added to an empty queue is
// handed out by the first Get at or after MaxWait, although a stream of
// high-priority items arrives faster than the single worker can process
// them. Without aging it would never be served while the stream lasts.
func TestPriorityAgingBound(t *testing.T) {
	const (
		maxWait = time.Second
		work    = 30 * time.Millisecond // per item
		every   = 20 * time.Millisecond // a high-priority item arrives
	)
	tests := []struct {
		name    string
		addedAt time.Duration // when the low item is added
		want    time.Duration // when a worker gets it
	}{
		// Gets happen every 30ms: 0, 30, ..., 990, 1020. The first at or
		// after 1s is at 1020ms.
		{"added at start", 0, 1020 * time.Millisecond},
		// Added at 15ms, overdue at 1015ms: the Get at 1020ms takes it.
		{"added mid-item", 15 * time.Millisecond, 1020 * time.Millisecond},
		// Added at 40ms, overdue at 1040: Gets at 1020, 1050 -> 1050.
		{"added later", 40 * time.Millisecond, 1050 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				q := NewPriority(Options[string]{}, maxWait)
				stop := make(chan struct{})
				// Queue the first high item before the low one so that
				// the first Get is not a race between them.
				q.AddWithPriority("high-0", 100)
				var wg sync.WaitGroup
				defer wg.Wait()
				wg.Go(func() { // the high-priority stream
					for i := 1; ; i++ {
						time.Sleep(every)
						select {
						case <-stop:
							return
						default:
						}
						q.AddWithPriority(fmt.Sprint("high-", i), 100)
					}
				})
				if tt.addedAt == 0 {
					q.AddWithPriority("low", -100)
				} else {
					wg.Go(func() {
						time.Sleep(tt.addedAt)
						q.AddWithPriority("low", -100)
					})
				}
				served := make(chan time.Duration, 1)
				wg.Go(func() { // one worker
					for {
						item, shutdown := q.Get()
						if shutdown {
							return
						}
						if item == "low" {
							served <- time.Since(start)
						}
						time.Sleep(work)
						q.Done(item)
					}
				})
				got := <-served
				close(stop)
				q.ShutDown()
				if got != tt.want {
					t.Errorf("low item served at %v, want %v (bound: %v after it was added, plus at most one item's work)", got, tt.want, maxWait)
				}
				if bound := tt.addedAt + maxWait + work; got > bound {
					t.Errorf("served at %v, beyond the bound %v", got, bound)
				}
			})
		})
	}
}

// Overdue items come out oldest first, whatever their priorities.
func TestPriorityOverdueOldestFirst(t *testing.T) {
	c := newFakeClock()
	q := NewPriority(Options[string]{Clock: c}, time.Second)
	q.AddWithPriority("old-low", -10)
	c.Step(100 * time.Millisecond)
	q.AddWithPriority("young-high", 10)
	c.Step(100 * time.Millisecond)
	q.AddWithPriority("younger-mid", 0)
	c.Step(5 * time.Second) // all overdue
	if got, want := drain(&q.Queue), []string{"old-low", "young-high", "younger-mid"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	// Not overdue: priority order again.
	q.AddWithPriority("old-low", -10)
	c.Step(100 * time.Millisecond)
	q.AddWithPriority("young-high", 10)
	if got, want := drain(&q.Queue), []string{"young-high", "old-low"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// Aging counts from when an item became ready, not from its first add:
// a re-queue on Done starts a new wait.
func TestPriorityAgeStartsWhenReady(t *testing.T) {
	c := newFakeClock()
	q := NewPriority(Options[string]{Clock: c}, time.Second)
	q.AddWithPriority("a", 0)
	item, _ := q.Get()
	q.AddWithPriority("a", 0) // dirty
	c.Step(5 * time.Second)   // a long reconcile
	q.AddWithPriority("b", 1)
	q.Done(item) // a is ready from now on
	if got, want := drain(&q.Queue), []string{"b", "a"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestNewPriorityDefaultMaxWait(t *testing.T) {
	q := NewPriority(Options[int]{}, 0)
	if got := time.Duration(q.prio.maxWait); got != DefaultMaxWait {
		t.Errorf("maxWait = %v, want %v", got, DefaultMaxWait)
	}
}
