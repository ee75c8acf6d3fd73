package workqueue

import (
	"testing"
	"time"
)

// parked waits until n Gets are parked on q.
func parked(t *testing.T, q *Queue[string], n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		q.mu.Lock()
		got := 0
		for w := q.waiters; w != nil; w = w.next {
			got++
		}
		q.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d Gets parked, want %d", got, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// getAsync runs q.Get in a goroutine and returns its item.
func getAsync(q *Queue[string]) <-chan string {
	c := make(chan string, 1)
	go func() {
		item, _ := q.Get()
		c <- item
	}()
	return c
}

// An Add that finds a Get parked hands it the item directly: the item
// never enters the ready set, and the Get has it processing.
func TestAddHandsItemToParkedGet(t *testing.T) {
	q := New(Options[string]{})
	defer q.ShutDown()
	got := getAsync(q)
	parked(t, q, 1)

	q.Add("a")
	if n := q.Len(); n != 0 {
		t.Errorf("Len after hand-off = %d, want 0", n)
	}
	if item := <-got; item != "a" {
		t.Fatalf("Get = %q, want a", item)
	}
	// Handed out means processing: an Add now marks it dirty.
	q.Add("a")
	if n := q.Len(); n != 0 {
		t.Errorf("Len after adding the item being processed = %d, want 0", n)
	}
	q.Done("a")
	if item, _ := q.Get(); item != "a" {
		t.Errorf("Get after Done = %q, want a", item)
	}
}

// While Gets are parked, the ready set holds no more items than there are
// spinning Gets to take them; each further Add wakes a parked Get, so no
// item waits while a worker sleeps.
func TestReadyWakesParkedGetsBeyondSpinners(t *testing.T) {
	for _, tt := range []struct {
		name     string
		spinning int
		adds     []string
		wantLen  int // items left in the ready set
		wantWoke int // parked Gets handed an item
	}{
		{"no spinner: every add wakes", 0, []string{"a", "b"}, 0, 2},
		{"a spinner takes the first", 1, []string{"a"}, 1, 0},
		{"the second wakes a parked Get", 1, []string{"a", "b"}, 1, 1},
		{"more adds than parked Gets queue", 0, []string{"a", "b", "c"}, 1, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			q := New(Options[string]{})
			got := []<-chan string{getAsync(q), getAsync(q)}
			parked(t, q, 2)
			// Stand in for a spinning Get (white box: a real one would
			// take the item and stop spinning at once).
			q.mu.Lock()
			q.spinning = tt.spinning
			q.mu.Unlock()

			for _, item := range tt.adds {
				q.Add(item)
			}
			if n := q.Len(); n != tt.wantLen {
				t.Errorf("Len = %d, want %d", n, tt.wantLen)
			}
			woke := map[string]bool{}
			for range tt.wantWoke {
				select {
				case item := <-got[0]:
					woke[item] = true
					got[0] = got[1]
				case item := <-got[1]:
					woke[item] = true
				case <-time.After(10 * time.Second):
					t.Fatalf("woken Gets: %v, want %d", woke, tt.wantWoke)
				}
			}
			// Handed out in order of arrival after the spinner's share.
			for i, item := range tt.adds[tt.spinning:][:tt.wantWoke] {
				if !woke[item] {
					t.Errorf("add %d (%q) not handed to a parked Get; woken: %v", i, item, woke)
				}
			}
			q.mu.Lock()
			q.spinning = 0
			q.mu.Unlock()
			q.ShutDown()
		})
	}
}
