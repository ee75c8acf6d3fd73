package cache_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/cache"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// TestServerInitialSync syncs 10,000 ConfigMaps from a real server through
// both initial-list paths and reports the time and the heap the cache
// keeps, with managedFields dropped (the default) and kept. The objects
// travel as a controller's would: typed, as protobuf, through Setpoint's
// client.
func TestServerInitialSync(t *testing.T) {
	const n = 10000
	const protobuf = "application/vnd.kubernetes.protobuf"
	srv := apiservertest.Start(t)
	seedConfigMaps(t, srv.Storage, "bench", n)
	tests := []struct {
		name       string
		watchList  bool
		keepFields bool
		wantReqs   []reqCount
	}{
		{"watchlist", true, false, []reqCount{
			{1, []string{"watch=true", "sendInitialEvents=true", "resourceVersionMatch=NotOlderThan", "allowWatchBookmarks=true", "accept=" + protobuf}},
			{0, []string{"limit="}}}},
		{"paged", false, false, []reqCount{
			{n / 500, []string{"limit=500", "accept=" + protobuf}}, {n/500 - 1, []string{"limit=500", "continue="}},
			{1, []string{"watch=true", "resourceVersion=", "allowWatchBookmarks=true"}}, {0, []string{"sendInitialEvents"}}}},
		{"watchlist keeping managedFields", true, true, []reqCount{
			{1, []string{"watch=true", "sendInitialEvents=true"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log requestLog
			lw := cmLW(t, log.wrap(srv.Config), "bench")
			opts := serverOpts[cache.CM](tt.name)
			opts.DisableWatchList = !tt.watchList
			opts.KeepManagedFields = tt.keepFields
			inf := cache.NewInformer[cache.CM](lw, opts)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			start := time.Now()
			go func() { done <- inf.Run(ctx) }()
			syncOrFail(t, inf)
			took := time.Since(start)
			if got := len(inf.Lister().List(nil)); got != n {
				t.Fatalf("cached %d objects, want %d", got, n)
			}
			obj, ok := inf.Lister().Namespace("bench").Get("cm-00042")
			if !ok || obj.Data["c"] != "cm-00042" || obj.Labels["shard"] != "2" {
				t.Fatalf("cm-00042 cached as %v", obj)
			}
			if got := len(obj.ManagedFields); (got > 0) != tt.keepFields {
				t.Errorf("managedFields entries %d, keep %v", got, tt.keepFields)
			}
			// The paged path's watch starts after the sync.
			envtest.EventuallyTrue(t, "the watch", func() bool { return log.count("watch=true") == 1 })
			for _, rc := range tt.wantReqs {
				if got := log.count(rc.parts...); got != rc.n {
					t.Errorf("%d requests with %q, want %d; requests:\n%q", got, rc.parts, rc.n, log.all())
				}
			}
			watching := liveHeap()
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			// Stopped: the watch and its buffers (client and server
			// side, both in this process) go, the store stays. The
			// server's handler ends a moment after the client.
			held := settledHeap()
			runtime.KeepAlive(inf)
			inf = nil
			without := liveHeap()
			t.Logf("%d ConfigMaps synced in %v with %d requests; the store keeps %.1f MiB (%.0f B/object); the open watch %.1f MiB more",
				n, took.Round(time.Millisecond), len(log.all()), mib(held-without), float64(held-without)/n, mib(watching-held))
		})
	}
}

type reqCount struct {
	n     int
	parts []string
}

func mib(b uint64) float64 { return float64(int64(b)) / (1 << 20) }

// settledHeap is the live heap once it stops shrinking.
func settledHeap() uint64 {
	h := liveHeap()
	for range 50 {
		time.Sleep(10 * time.Millisecond)
		next := liveHeap()
		if next+(64<<10) >= h {
			return min(h, next)
		}
		h = next
	}
	return h
}
