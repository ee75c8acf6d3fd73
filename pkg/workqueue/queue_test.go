package workqueue

import (
	"context"
	"errors"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// drain Gets (and Dones) everything ready, in order, without blocking.
func drain[T comparable](q *Queue[T]) []T {
	var got []T
	for q.Len() > 0 {
		item, shutdown := q.Get()
		if shutdown {
			break
		}
		got = append(got, item)
		q.Done(item)
	}
	return got
}

func TestAddDeduplicatesAndKeepsOrder(t *testing.T) {
	tests := []struct {
		name    string
		adds    []string
		want    []string
		wantLen int
	}{
		{"empty", nil, nil, 0},
		{"fifo", []string{"a", "b", "c"}, []string{"a", "b", "c"}, 3},
		{"duplicates stored once", []string{"a", "a", "a"}, []string{"a"}, 1},
		{"first add fixes the position", []string{"a", "b", "a", "c", "b"}, []string{"a", "b", "c"}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := New(Options[string]{})
			for _, a := range tt.adds {
				q.Add(a)
			}
			if got := q.Len(); got != tt.wantLen {
				t.Errorf("Len() = %d, want %d", got, tt.wantLen)
			}
			if got := drain(q); !slices.Equal(got, tt.want) {
				t.Errorf("Get order = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestAddWhileProcessingRequeuesOnDone(t *testing.T) {
	q := New(Options[string]{})
	q.Add("a")
	q.Add("b")
	item, _ := q.Get()
	if item != "a" {
		t.Fatalf("Get() = %q, want a", item)
	}
	q.Add("a") // dirty: not queued while processing
	q.Add("a") // still one pending re-add
	if got := q.Len(); got != 1 {
		t.Fatalf("Len() while a is processing = %d, want 1 (only b)", got)
	}
	q.Done("a")
	if got, want := drain(q), []string{"b", "a"}; !slices.Equal(got, want) {
		t.Errorf("after Done = %v, want %v", got, want)
	}
	if got := q.Len(); got != 0 {
		t.Errorf("Len() = %d, want 0: a must be re-queued exactly once", got)
	}
}

func TestItemBeingProcessedIsNotHandedOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		q.Add("a")
		first, _ := q.Get()
		q.Add("a")

		got := make(chan string, 1)
		go func() {
			item, _ := q.Get()
			got <- item
		}()
		synctest.Wait()
		select {
		case item := <-got:
			t.Fatalf("second worker got %q while it was processing", item)
		default:
		}
		q.Done(first)
		synctest.Wait()
		if item := <-got; item != "a" {
			t.Errorf("after Done, second worker got %q, want a", item)
		}
	})
}

func TestDoneOfUnknownItemIsIgnored(t *testing.T) {
	q := New(Options[string]{})
	q.Done("never-added")
	q.Add("a")
	q.Done("a") // queued, not processing
	if got := drain(q); !slices.Equal(got, []string{"a"}) {
		t.Errorf("got %v, want [a]", got)
	}
}

func TestShutDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[int]{})
		parked := make(chan bool)
		go func() {
			_, shutdown := q.Get()
			parked <- shutdown
		}()
		synctest.Wait()
		q.ShutDown()
		if shutdown := <-parked; !shutdown {
			t.Error("parked Get: shutdown = false, want true")
		}
		if !q.ShuttingDown() {
			t.Error("ShuttingDown() = false after ShutDown")
		}
		q.Add(1)
		if got := q.Len(); got != 0 {
			t.Errorf("Len() after Add past shutdown = %d, want 0", got)
		}
		q.ShutDown() // idempotent
	})
}

func TestShutDownHandsOutQueuedItemsFirst(t *testing.T) {
	q := New(Options[int]{})
	q.Add(1)
	q.Add(2)
	q.ShutDown()
	var got []int
	for {
		item, shutdown := q.Get()
		if shutdown {
			break
		}
		got = append(got, item)
		q.Done(item)
	}
	if want := []int{1, 2}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestShutDownWithDrainWaitsForDone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		q := New(Options[string]{})
		q.Add("a")
		item, _ := q.Get()

		var drained time.Time
		done := make(chan error)
		go func() {
			err := q.ShutDownWithDrain(context.Background())
			drained = time.Now()
			done <- err
		}()
		time.Sleep(3 * time.Second)
		q.Done(item)
		if err := <-done; err != nil {
			t.Fatalf("ShutDownWithDrain() = %v", err)
		}
		if got, want := drained.Sub(start), 3*time.Second; got != want {
			t.Errorf("drain ended after %v, want %v (when Done was called)", got, want)
		}
	})
}

func TestShutDownWithDrainReturnsWhenIdle(t *testing.T) {
	q := New(Options[string]{})
	if err := q.ShutDownWithDrain(context.Background()); err != nil {
		t.Errorf("ShutDownWithDrain() on an idle queue = %v", err)
	}
}

func TestShutDownWithDrainContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		q.Add("a")
		q.Add("b")
		q.Get()
		q.Get()
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		err := q.ShutDownWithDrain(ctx)
		var de *DrainError
		if !errors.As(err, &de) {
			t.Fatalf("ShutDownWithDrain() = %v, want a *DrainError", err)
		}
		if de.InFlight != 2 || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("got InFlight %d, err %v; want 2 and DeadlineExceeded", de.InFlight, err)
		}
	})
}
