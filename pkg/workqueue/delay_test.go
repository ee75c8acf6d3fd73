package workqueue

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/clock"
)

type arrival struct {
	item string
	at   time.Duration
}

// collect runs one worker that records when each item arrives, until the
// queue shuts down.
func collect(q *Queue[string], start time.Time) <-chan []arrival {
	out := make(chan []arrival, 1)
	go func() {
		var got []arrival
		for {
			item, shutdown := q.Get()
			if shutdown {
				out <- got
				return
			}
			got = append(got, arrival{item, time.Since(start)})
			q.Done(item)
		}
	}()
	return out
}

func TestAddAfter(t *testing.T) {
	type addAfter struct {
		item string
		d    time.Duration
	}
	tests := []struct {
		name string
		adds []addAfter
		want []arrival
	}{
		{
			name: "due order, not call order",
			adds: []addAfter{{"c", 3 * time.Second}, {"a", time.Second}, {"b", 2 * time.Second}},
			want: []arrival{{"a", time.Second}, {"b", 2 * time.Second}, {"c", 3 * time.Second}},
		},
		{
			name: "earlier delay wins",
			adds: []addAfter{{"x", 5 * time.Second}, {"x", time.Second}},
			want: []arrival{{"x", time.Second}},
		},
		{
			name: "later delay does not postpone",
			adds: []addAfter{{"x", time.Second}, {"x", 5 * time.Second}},
			want: []arrival{{"x", time.Second}},
		},
		{
			name: "zero and negative delays add at once",
			adds: []addAfter{{"a", 0}, {"b", -time.Second}},
			want: []arrival{{"a", 0}, {"b", 0}},
		},
		{
			name: "same due time keeps both",
			adds: []addAfter{{"a", time.Second}, {"b", time.Second}},
			want: []arrival{{"a", time.Second}, {"b", time.Second}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				q := New(Options[string]{})
				for _, a := range tt.adds {
					q.AddAfter(a.item, a.d)
				}
				got := collect(q, start)
				time.Sleep(time.Minute)
				q.ShutDown()
				if g := <-got; !slices.Equal(g, tt.want) {
					t.Errorf("arrivals = %v, want %v", g, tt.want)
				}
			})
		})
	}
}

func TestAddAfterWhileQueuedAddsAgainWhenDue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		q := New(Options[string]{})
		q.Add("a")
		q.AddAfter("a", time.Second)
		got := collect(q, start)
		time.Sleep(time.Minute)
		q.ShutDown()
		want := []arrival{{"a", 0}, {"a", time.Second}}
		if g := <-got; !slices.Equal(g, want) {
			t.Errorf("arrivals = %v, want %v", g, want)
		}
	})
}

func TestAddAfterDueWhileProcessingMarksDirty(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		q.Add("a")
		item, _ := q.Get()
		q.AddAfter("a", time.Second)
		time.Sleep(2 * time.Second)
		if got := q.Len(); got != 0 {
			t.Fatalf("Len() = %d while a is processing, want 0", got)
		}
		q.Done(item)
		if got := q.Len(); got != 1 {
			t.Errorf("Len() after Done = %d, want 1", got)
		}
	})
}

func TestShutDownDropsDelayedAdds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		q.AddAfter("a", time.Second)
		q.ShutDown()
		q.AddAfter("b", time.Second)
		time.Sleep(time.Minute)
		if got := q.Len(); got != 0 {
			t.Errorf("Len() = %d, want 0", got)
		}
		if _, shutdown := q.Get(); !shutdown {
			t.Error("Get() after shutdown: shutdown = false")
		}
	})
}

// With an injected clock and no real time at all: the timer is re-armed
// for an earlier item, and a stale fire changes nothing.
// newFakeClock is the clock the queue's timing tests step by hand.
func newFakeClock() *clock.Fake { return clock.NewFake(time.Unix(1_700_000_000, 0)) }

func TestAddAfterWithFakeClock(t *testing.T) {
	c := newFakeClock()
	q := New(Options[string]{Clock: c})
	q.AddAfter("late", 10*time.Second)
	q.AddAfter("early", 2*time.Second)
	c.Step(time.Second)
	if got := q.Len(); got != 0 {
		t.Fatalf("Len() at 1s = %d, want 0", got)
	}
	c.Step(time.Second)
	if got := drain(q); !slices.Equal(got, []string{"early"}) {
		t.Fatalf("at 2s got %v, want [early]", got)
	}
	q.fire() // spurious: nothing due
	if got := q.Len(); got != 0 {
		t.Fatalf("Len() after a spurious fire = %d, want 0", got)
	}
	c.Step(8 * time.Second)
	if got := drain(q); !slices.Equal(got, []string{"late"}) {
		t.Fatalf("at 10s got %v, want [late]", got)
	}
}

func TestDelayHeapOrdersManyItems(t *testing.T) {
	c := newFakeClock()
	q := New(Options[int]{Clock: c})
	// A permutation of 0..99 as due seconds, item = due second.
	for i := range 100 {
		s := (i * 37) % 100
		q.AddAfter(s, time.Duration(s+1)*time.Second)
	}
	var got []int
	for range 100 {
		c.Step(time.Second)
		got = append(got, drain(q)...)
	}
	want := make([]int, 100)
	for i := range want {
		want[i] = i
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want 0..99 in order", got)
	}
}
