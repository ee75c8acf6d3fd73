package bench

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/util/workqueue"

	setpoint "github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// queue is what the benchmarks use of a rate-limiting work queue. Both
// Setpoint's *workqueue.Queue[string] and client-go's
// TypedRateLimitingInterface[string] have it, so both pay the same
// interface-call cost.
type queue interface {
	Add(item string)
	Get() (item string, shutdown bool)
	Done(item string)
	Len() int
	AddRateLimited(item string)
	Forget(item string)
	ShutDown()
}

// impls run in this order, so that each Setpoint result can be compared
// with the client-go results already measured.
var impls = []struct {
	name string
	new  func() queue
}{
	{"client-go", func() queue {
		// What controllers get by default: the typed rate-limiting queue
		// with the default controller rate limiter, unnamed (no metrics).
		return workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{})
	}},
	{"setpoint", func() queue {
		return setpoint.New(setpoint.Options[string]{})
	}},
}

func makeKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("namespace-%d/object-%d", i%97, i)
	}
	return keys
}

// BenchmarkThroughput is the main comparison: producers add keys from a
// key space with duplicates as fast as they can while workers Get and Done
// them. One op is one Add; the run ends when every add has been made and
// the queue is drained. adds/s is the offered load completed per second;
// items/s is the items workers processed per second (lower than adds/s by
// deduplication).
func BenchmarkThroughput(b *testing.B) {
	scenarios := []struct {
		producers, workers, keys int
	}{
		{1, 1, 1000},
		{4, 4, 1000},
		{8, 16, 1000},
		{4, 4, 100_000},
		{1, 1, 100_000},
		{1, 4, 100_000},
	}
	for _, s := range scenarios {
		name := fmt.Sprintf("p%d-w%d-keys%d", s.producers, s.workers, s.keys)
		keys := makeKeys(s.keys)
		b.Run(name, func(b *testing.B) {
			for _, impl := range impls {
				b.Run(impl.name, func(b *testing.B) {
					b.ReportAllocs()
					elapsed, processed := throughput(b.N, impl.new(), keys, s.producers, s.workers, b.ResetTimer)
					b.StopTimer()
					report(b, elapsed, b.N, processed, "")
				})
			}
			b.Run("paired", func(b *testing.B) { paired(b, keys, s.producers, s.workers) })
		})
	}
}

// throughput runs producers adding n keys in total and workers taking
// them until the queue is drained, and returns the time it took and the
// number of items processed. started is called once the workers run.
func throughput(n int, q queue, keys []string, producers, workers int, started func()) (time.Duration, int64) {
	var processed atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			n := int64(0)
			for {
				item, shutdown := q.Get()
				if shutdown {
					processed.Add(n)
					return
				}
				n++
				q.Done(item)
			}
		})
	}
	started()
	start := time.Now()
	var pw sync.WaitGroup
	for p := range producers {
		pw.Go(func() {
			// Each producer walks the key space from its own offset with
			// a stride coprime to its size, so producers collide on keys
			// but not in lockstep.
			i := p * 7919
			for range (n - p + producers - 1) / producers {
				q.Add(keys[i%len(keys)])
				i += 104729
			}
		})
	}
	pw.Wait()
	q.ShutDown() // workers drain what is left, then stop
	wg.Wait()
	return time.Since(start), processed.Load()
}

// report reports and records adds/s and items/s, the unit names prefixed
// with prefix.
func report(b *testing.B, elapsed time.Duration, adds int, processed int64, prefix string) {
	a := float64(adds) / elapsed.Seconds()
	i := float64(processed) / elapsed.Seconds()
	b.ReportMetric(a, prefix+"adds/s")
	b.ReportMetric(i, prefix+"items/s")
	record(b, "adds/s", a, true)
	record(b, "items/s", i, true)
}

// paired runs the same load on both queues in alternating rounds, so that
// a change in the machine's load (other processes) hits both alike, and
// reports Setpoint's speedup over client-go from these paired runs: the
// figure to trust on a busy machine.
func paired(b *testing.B, keys []string, producers, workers int) {
	const rounds = 4
	var elapsed [2]time.Duration
	var processed [2]int64
	n := max(b.N/rounds, 1)
	for range rounds {
		for i, impl := range impls {
			d, p := throughput(n, impl.new(), keys, producers, workers, func() {})
			elapsed[i] += d
			processed[i] += p
		}
	}
	b.StopTimer()
	adds := float64(n * rounds)
	for i, impl := range impls {
		b.ReportMetric(adds/elapsed[i].Seconds(), impl.name+"-adds/s")
		b.ReportMetric(float64(processed[i])/elapsed[i].Seconds(), impl.name+"-items/s")
	}
	cgAdds, spAdds := adds/elapsed[0].Seconds(), adds/elapsed[1].Seconds()
	cgItems, spItems := float64(processed[0])/elapsed[0].Seconds(), float64(processed[1])/elapsed[1].Seconds()
	b.ReportMetric(spAdds/cgAdds, "speedup(adds/s)")
	b.ReportMetric(spItems/cgItems, "speedup(items/s)")
	record(b, "paired-speedup(adds/s)", spAdds/cgAdds, true)
	record(b, "paired-speedup(items/s)", spItems/cgItems, true)
}

// BenchmarkRequeue is a closed loop with no deduplication to argue about:
// keys items circulate, and each worker takes one, adds it again while
// processing it (an event arriving mid-reconcile marks it dirty) and marks
// it Done, which queues it again. One op is one item processed, so the
// load is exactly the same for both queues; items/s is the throughput.
func BenchmarkRequeue(b *testing.B) {
	const keys = 1000
	keySpace := makeKeys(keys)
	for _, workers := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("w%d-keys%d", workers, keys), func(b *testing.B) {
			for _, impl := range impls {
				b.Run(impl.name, func(b *testing.B) {
					b.ReportAllocs()
					elapsed := requeue(b.N, impl.new(), keySpace, workers, b.ResetTimer)
					b.StopTimer()
					items := float64(b.N) / elapsed.Seconds()
					b.ReportMetric(items, "items/s")
					record(b, "items/s", items, true)
				})
			}
			b.Run("paired", func(b *testing.B) {
				const rounds = 4
				var elapsed [2]time.Duration
				n := max(b.N/rounds, 1)
				for range rounds {
					for i, impl := range impls {
						elapsed[i] += requeue(n, impl.new(), keySpace, workers, func() {})
					}
				}
				b.StopTimer()
				cg, sp := float64(n*rounds)/elapsed[0].Seconds(), float64(n*rounds)/elapsed[1].Seconds()
				b.ReportMetric(cg, "client-go-items/s")
				b.ReportMetric(sp, "setpoint-items/s")
				b.ReportMetric(sp/cg, "speedup(items/s)")
				record(b, "paired-speedup(items/s)", sp/cg, true)
			})
		})
	}
}

// requeue processes n items in the closed loop described above and
// returns the time it took.
func requeue(n int, q queue, keys []string, workers int, started func()) time.Duration {
	for _, k := range keys {
		q.Add(k)
	}
	var processed atomic.Int64
	var wg sync.WaitGroup
	started()
	start := time.Now()
	for range workers {
		wg.Go(func() {
			local := int64(0)
			for {
				item, shutdown := q.Get()
				if shutdown {
					return
				}
				q.Add(item)
				q.Done(item)
				// Count in batches: a shared counter per item would
				// measure the counter more than the queue.
				if local++; local == 64 {
					local = 0
					if processed.Add(64) >= int64(n) {
						q.ShutDown()
					}
				}
			}
		})
	}
	wg.Wait()
	return time.Since(start)
}

// BenchmarkAddGetDone is one goroutine cycling items through the queue:
// the cost of the queue itself, without contention. At depth 1 each item
// is added, got and done in turn; at depth 1000 a thousand items are
// queued before they are taken, which exercises the ready set's growth.
func BenchmarkAddGetDone(b *testing.B) {
	keys := makeKeys(1000)
	for _, depth := range []int{1, 1000} {
		b.Run(fmt.Sprintf("depth%d", depth), func(b *testing.B) {
			for _, impl := range impls {
				b.Run(impl.name, func(b *testing.B) {
					q := impl.new()
					defer q.ShutDown()
					b.ReportAllocs()
					i := 0
					for b.Loop() {
						q.Add(keys[i%len(keys)])
						i++
						if i%depth == 0 {
							for range depth {
								item, _ := q.Get()
								q.Done(item)
							}
						}
					}
					recordNs(b)
				})
			}
		})
	}
}

// BenchmarkAddRateLimitedForget is the retry path's bookkeeping: a failed
// item is re-added through the default rate limiter (per-item exponential
// and a 10 qps token bucket, so past the burst every add is delayed and
// waits in the delay heap), then forgotten as if it had succeeded.
func BenchmarkAddRateLimitedForget(b *testing.B) {
	keys := makeKeys(1000)
	for _, impl := range impls {
		b.Run(impl.name, func(b *testing.B) {
			q := impl.new()
			defer q.ShutDown()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				k := keys[i%len(keys)]
				i++
				q.AddRateLimited(k)
				q.Forget(k)
			}
			recordNs(b)
		})
	}
}

// recordNs records the benchmark's ns/op, lower is better.
func recordNs(b *testing.B) {
	if b.N > 1 {
		record(b, "ns/op", float64(b.Elapsed().Nanoseconds())/float64(b.N), false)
	}
}
