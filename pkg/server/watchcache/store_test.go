package watchcache_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// TestAddAfterStartRacesWithWrites adds a resource, from a goroutine of
// its own, while that resource is being written: the new cache must hold
// exactly the stored state at its revision.
// Store.run publishes a revision only after the OnEvent hook, so an Add
// in between must list at the revision applied, not the one published;
// listing at the published one loses the event in between.
func TestAddAfterStartRacesWithWrites(t *testing.T) {
	e := newEnv(t, watchcache.DefaultLimits, nil)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			name := fmt.Sprintf("s%02d", i%50)
			k := key(secrets, "a", name)
			if _, err := e.mem.Update(e.ctx, k, value("a", name, "x", i), 0); err != nil {
				if _, err := e.mem.Create(e.ctx, k, value("a", name, "x", i)); err != nil {
					t.Error(err)
					return
				}
			}
		}
	})
	defer func() { close(stop); wg.Wait() }()
	deadline := time.Now().Add(time.Second)
	iters := 0
	for ; time.Now().Before(deadline); iters++ {
		e.store.Remove(secrets)
		c, err := e.store.Add(e.ctx, secrets, decode)
		if err != nil {
			t.Fatal(err)
		}
		res := c.List(watchcache.ListOptions{})
		st, err := e.mem.List(e.ctx, key(secrets, "a", ""), storage.ListOptions{Revision: res.Revision})
		if err != nil {
			t.Fatal(err)
		}
		cached := map[string]int64{}
		for _, o := range res.Items {
			cached[o.Key] = o.Revision
		}
		for _, kv := range st.Items {
			if cached[kv.Key] != kv.Revision {
				t.Fatalf("after %d adds: cache true at rev %d has %s@%d, storage has @%d", iters+1, res.Revision, kv.Key, cached[kv.Key], kv.Revision)
			}
		}
	}
	t.Logf("%d adds, no missed change", iters)
}
