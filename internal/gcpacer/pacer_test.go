package gcpacer

import (
	"context"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

const mib = 1 << 20

func TestFor(t *testing.T) {
	p := Pacer{Percent: 50, MaxPercent: 100, Headroom: 256 * mib}
	tests := []struct {
		name string
		live uint64
		want int
	}{
		{"nothing marked yet", 0, 100},
		{"small heap: capped", 100 * mib, 100},
		{"headroom floor", 320 * mib, 80},
		{"at the crossover", 512 * mib, 50},
		{"large heap", 2048 * mib, 50},
	}
	for _, tt := range tests {
		if got := p.For(tt.live); got != tt.want {
			t.Errorf("%s: For(%d MiB) = %d, want %d", tt.name, tt.live/mib, got, tt.want)
		}
	}
}

func TestStartFollowsTheLiveHeap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var got []int
		p := Pacer{Percent: 50, MaxPercent: 100, Headroom: 256 * mib, Interval: time.Second,
			live: sequence(&mu, 100*mib, 100*mib, 1024*mib, 320*mib),
			set: func(pct int) int {
				mu.Lock()
				defer mu.Unlock()
				got = append(got, pct)
				return 0
			},
		}
		runFor(t, p, 3500*time.Millisecond)
		// An unchanged heap sets nothing.
		if want := []int{100, 50, 80}; !slices.Equal(got, want) {
			t.Errorf("set %v, want %v", got, want)
		}
	})
}

func TestStartReleasesOnGoingQuiet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		// Cumulative allocations read at start and at each tick: busy,
		// quiet, quiet, busy, quiet.
		reads := []uint64{0, 50 * mib, 50*mib + 1, 50*mib + 2, 90 * mib, 90 * mib}
		var released []int // the ticks at which memory was returned
		tick := 0
		p := Pacer{Percent: 50, MaxPercent: 100, Headroom: 256 * mib, Interval: time.Second, Quiet: mib,
			live: func() uint64 { return 100 * mib },
			set:  func(int) int { return 0 },
			allocs: func() uint64 {
				mu.Lock()
				defer mu.Unlock()
				r := reads[0]
				if len(reads) > 1 {
					reads = reads[1:]
				}
				tick++
				return r
			},
			release: func() {
				mu.Lock()
				defer mu.Unlock()
				released = append(released, tick-1)
			},
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- p.Start(ctx) }()
		time.Sleep(5500 * time.Millisecond)
		cancel()
		<-done
		// Released on the first quiet tick after each busy spell, and
		// not again while quiet.
		if want := []int{2, 5}; !slices.Equal(released, want) {
			t.Errorf("released at ticks %v, want %v", released, want)
		}
	})
}

func TestStartLetsABusyHeapGrow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var got []int
		p := Pacer{Percent: 50, MaxPercent: 100, Headroom: 256 * mib, Interval: time.Second,
			Busy: 128 * mib, BusyMaxPercent: 400,
			live: func() uint64 { return 32 * mib },
			set: func(pct int) int {
				mu.Lock()
				defer mu.Unlock()
				got = append(got, pct)
				return 0
			},
			// Cumulative allocations read at start and at each tick:
			// some, busy, busy, quiet.
			allocs: sequence(&mu, 0, 10*mib, 200*mib, 400*mib, 400*mib),
		}
		runFor(t, p, 4500*time.Millisecond)
		// 100 until a tick allocates Busy, 400 while busy, 100 after.
		if want := []int{100, 400, 100}; !slices.Equal(got, want) {
			t.Errorf("set %v, want %v", got, want)
		}
	})
}

// sequence returns a function that yields vals in turn, then the last
// one again.
func sequence(mu *sync.Mutex, vals ...uint64) func() uint64 {
	return func() uint64 {
		mu.Lock()
		defer mu.Unlock()
		v := vals[0]
		if len(vals) > 1 {
			vals = vals[1:]
		}
		return v
	}
}

// runFor runs p for d of the bubble's time and checks it stops cleanly.
func runFor(t *testing.T, p Pacer, d time.Duration) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- p.Start(ctx) }()
	time.Sleep(d)
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Start = %v, want nil on cancel", err)
	}
}
