package storagetest

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// Bench runs the storage benchmarks against stores made by newStore:
// create throughput and latency with 1 and 64 concurrent writers, and
// watch delivery latency with 1,000 watchers.
func Bench(b *testing.B, newStore NewFunc) {
	for _, writers := range []int{1, 64} {
		b.Run(fmt.Sprintf("Create/writers=%d", writers), func(b *testing.B) { benchCreate(b, newStore(b), writers) })
	}
	b.Run("WatchDelivery/watchers=1000", func(b *testing.B) { benchWatch(b, newStore(b), 1000) })
}

// benchCreate reports creates per second and the latency percentiles of
// single creates with writers running at once.
func benchCreate(b *testing.B, s storage.Interface, writers int) {
	defer s.Close()
	ctx := context.Background()
	value := make([]byte, 1024)
	var next atomic.Int64
	lat := make([][]time.Duration, writers)
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				t0 := time.Now()
				if _, err := s.Create(ctx, fmt.Sprintf("/bench/%d/%d", w, i), value); err != nil {
					b.Error(err)
					return
				}
				lat[w] = append(lat[w], time.Since(t0))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	reportLatency(b, slices.Concat(lat...))
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "creates/s")
}

// benchWatch writes one change at a time and waits until every watcher
// has it; it reports how long the slowest watcher took.
func benchWatch(b *testing.B, s storage.Interface, watchers int) {
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var received sync.WaitGroup
	var mu sync.Mutex
	var lastSeen []time.Duration
	for range watchers {
		ch, err := s.Watch(ctx, "/watch/", 0)
		if err != nil {
			b.Fatal(err)
		}
		go func() {
			for ev := range ch {
				sent := time.Unix(0, int64(binary.BigEndian.Uint64(ev.Value)))
				d := time.Since(sent)
				mu.Lock()
				lastSeen[len(lastSeen)-1] = max(lastSeen[len(lastSeen)-1], d)
				mu.Unlock()
				received.Done()
			}
		}()
	}
	value := make([]byte, 1024)
	b.ResetTimer()
	for i := range b.N {
		mu.Lock()
		lastSeen = append(lastSeen, 0)
		mu.Unlock()
		received.Add(watchers)
		binary.BigEndian.PutUint64(value, uint64(time.Now().UnixNano()))
		if _, err := s.Create(ctx, fmt.Sprintf("/watch/%d", i), value); err != nil {
			b.Fatal(err)
		}
		received.Wait()
	}
	b.StopTimer()
	reportLatency(b, lastSeen)
}

func reportLatency(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))]) / float64(time.Millisecond) }
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}
