package workqueue

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// Many producers and workers hammer a small key space, on each of the
// queue's code paths (lock-free for a plain FIFO queue, locked for
// priority queues and queues with metrics). Two properties must hold
// whatever the interleaving:
//   - exclusivity: no key is ever held by two workers at once;
//   - no lost add: every add is followed by a processing that starts after
//     it, so the last processing of each key sees the key's last version.
func TestConcurrentExclusivityAndNoLostAdds(t *testing.T) {
	const (
		keys      = 17
		producers = 8
		workers   = 8
		addsEach  = 5000
	)
	for _, tt := range []struct {
		name string
		make func() *Queue[int]
	}{
		{"fifo", func() *Queue[int] { return New(Options[int]{}) }},
		{"priority", func() *Queue[int] { return &NewPriority(Options[int]{}, 0).Queue }},
		{"fifo with metrics", func() *Queue[int] {
			pm, err := NewPrometheusMetrics(prometheus.NewRegistry())
			if err != nil {
				t.Fatal(err)
			}
			return New(Options[int]{Name: "q", Metrics: pm})
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			q := tt.make()
			var (
				holder  [keys]atomic.Int32 // worker id + 1 holding the key, 0 if none
				version [keys]atomic.Int64 // bumped before every add
				seen    [keys]atomic.Int64 // version seen by the last processing
				doubles atomic.Int64
			)
			var wg sync.WaitGroup
			for w := range workers {
				wg.Go(func() {
					for {
						k, shutdown := q.Get()
						if shutdown {
							return
						}
						if !holder[k].CompareAndSwap(0, int32(w+1)) {
							doubles.Add(1)
						}
						seen[k].Store(version[k].Load())
						holder[k].Store(0)
						q.Done(k)
					}
				})
			}
			var producersWG sync.WaitGroup
			for p := range producers {
				producersWG.Go(func() {
					for i := range addsEach {
						k := (i*7 + p) % keys
						version[k].Add(1)
						q.Add(k)
					}
				})
			}
			producersWG.Wait()
			if err := q.ShutDownWithDrain(t.Context()); err != nil {
				t.Fatal(err)
			}
			wg.Wait()

			if got := doubles.Load(); got != 0 {
				t.Errorf("a key was held by two workers %d times", got)
			}
			for k := range keys {
				if got, want := seen[k].Load(), version[k].Load(); got != want {
					t.Errorf("key %d: last processing saw version %d, want %d (an add was lost)", k, got, want)
				}
			}
		})
	}
}
