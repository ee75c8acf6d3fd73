package watchcache_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/apiserver/watchcache"
	"github.com/setpoint-dev/setpoint/pkg/storage"
)

func TestZZAddRace(t *testing.T) {
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
			if _, err := e.mem.Create(e.ctx, key(secrets, "a", fmt.Sprintf("s%07d", i)), value("a", fmt.Sprintf("s%07d", i), "x", i)); err != nil {
				t.Error(err)
				return
			}
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	iters, misses := 0, 0
	for time.Now().Before(deadline) && misses == 0 {
		iters++
		e.store.Remove(secrets)
		c, err := e.store.Add(e.ctx, secrets, decode)
		if err != nil {
			t.Fatal(err)
		}
		// compare at a revision both have reached
		if err := e.store.WaitFresh(e.ctx); err != nil {
			t.Fatal(err)
		}
		res := c.List(watchcache.ListOptions{})
		st, err := e.mem.List(e.ctx, key(secrets, "a", ""), storage.ListOptions{Revision: res.Revision})
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Items) != len(res.Items) {
			misses++
			have := map[string]bool{}
			for _, o := range res.Items {
				have[o.Key] = true
			}
			for _, kv := range st.Items {
				if !have[kv.Key] {
					t.Errorf("iteration %d: cache at rev %d misses %s written at rev %d", iters, res.Revision, kv.Key, kv.Revision)
				}
			}
		}
	}
	close(stop)
	wg.Wait()
	t.Logf("%d iterations, %d with a missing object", iters, misses)
}
