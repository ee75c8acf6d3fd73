package cache

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"

	"github.com/setpoint-dev/setpoint/pkg/apiserver"
	"github.com/setpoint-dev/setpoint/pkg/apiserver/apiservertest"
	"github.com/setpoint-dev/setpoint/pkg/apiserver/watchcache"
	"github.com/setpoint-dev/setpoint/pkg/storage/memory"
)

// TestServerRestart watches through a server restart. While the server is
// down, objects are changed, created and deleted behind its back; the new
// server cannot replay that history, so the watch expires and the cache
// relists. The missed deletions reach handlers as ordinary deletes with
// the last state the cache knew.
func TestServerRestart(t *testing.T) {
	store := memory.New()
	t.Cleanup(func() { store.Close() })
	srv1, stop1, err := apiservertest.Run(context.Background(), apiservertest.Options{Storage: store})
	if err != nil {
		t.Fatal(err)
	}
	var cur atomic.Pointer[dynamic.ResourceInterface]
	var log requestLog
	point := func(s *apiservertest.Server) {
		ri := dynamic.NewForConfigOrDie(log.wrap(s.Config)).Resource(cmGVR).Namespace("default")
		cur.Store(&ri)
	}
	point(srv1)
	c := newClient(t, srv1.Config)
	keep := c.create(newCM("default", "keep", nil, "v", "1"))
	c.create(newCM("default", "change", nil, "v", "1"))
	gone := c.create(newCM("default", "gone", nil, "v", "1"))

	lw := dynLW{get: func() dynamic.ResourceInterface { return *cur.Load() }}
	inf := NewInformer[U](lw, serverOpts("restart"))
	h := &ucalls{}
	inf.AddHandler(h, HandlerOptions{})
	runInformer(t, inf)
	syncOrFail(t, inf)
	eventually(t, "initial adds", func() bool { return h.len() == 3 })
	h.take()

	stop1()
	// Behind the server's back: one update, one create, one delete.
	ctx := context.Background()
	kv, err := store.Get(ctx, storeKey("default", "change"))
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	json.Unmarshal(kv.Value, &obj)
	obj["data"] = map[string]any{"v": "2"}
	b, _ := json.Marshal(obj)
	if _, err := store.Update(ctx, storeKey("default", "change"), b, 0); err != nil {
		t.Fatal(err)
	}
	newObj := newCM("default", "new", nil)
	newObj.SetUID("uid-new")
	b, _ = json.Marshal(newObj.Object)
	if _, err := store.Create(ctx, storeKey("default", "new"), b); err != nil {
		t.Fatal(err)
	}
	if _, _, err := store.Delete(ctx, storeKey("default", "gone"), 0); err != nil {
		t.Fatal(err)
	}

	srv2 := apiservertest.StartWith(t, apiservertest.Options{Storage: store})
	point(srv2)
	eventually(t, "the changes", func() bool { return h.len() >= 3 })
	got := h.take()
	slices.Sort(got)
	want := []string{"add default/new", "delete default/gone " + gone.GetResourceVersion(), "update default/change"}
	if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || !strings.HasPrefix(got[2], want[2]) {
		t.Errorf("after restart\n got %q\nwant %q (+versions)", got, want)
	}
	// The first server's history is gone: the resumed watch expired and
	// the cache listed again.
	if n := log.count("sendInitialEvents=true"); n != 2 {
		t.Errorf("%d watch lists, want 2: %q", n, log.all())
	}
	if o, ok := inf.Lister().Namespace("default").Get("keep"); !ok || o.GetResourceVersion() != keep.GetResourceVersion() {
		t.Errorf("unchanged object: %v %v", o, ok)
	}

	// The watch goes on against the new server.
	c2 := newClient(t, srv2.Config)
	c2.delete("default", "keep")
	eventually(t, "a live delete", func() bool { return h.len() >= 1 })
	if got := h.take(); len(got) != 1 || !strings.HasPrefix(got[0], "delete default/keep ") {
		t.Errorf("live: %q", got)
	}
}

// TestServerRelistOn410 makes the server forget the history a paused
// watch needs (tiny CacheLimits), then lets the watch resume: the server
// answers 410 Expired, and the cache relists and tells handlers the
// deletes it missed.
func TestServerRelistOn410(t *testing.T) {
	srv := apiservertest.StartWith(t, apiservertest.Options{Configure: func(c *apiserver.Config) {
		c.CacheLimits = watchcache.Limits{MinEvents: 1, MaxEvents: 5, MaxBytes: 1 << 20, WatchBuffer: 64}
	}})
	c := newClient(t, srv.Config)
	for _, n := range []string{"a", "b", "c"} {
		c.create(newCM("default", n, nil))
	}
	var log requestLog
	gate := &gatedLW{inner: newDynLW(t, log.wrap(srv.Config), "default")}
	inf := NewInformer[U](gate, serverOpts("expire"))
	h := &ucalls{}
	inf.AddHandler(h, HandlerOptions{})
	runInformer(t, inf)
	syncOrFail(t, inf)
	eventually(t, "initial adds", func() bool { return h.len() == 3 })
	h.take()

	gate.pause()
	c.delete("default", "a")
	for i := range 10 { // push the delete out of the server's history
		c.create(newCM("default", "x"+string(rune('0'+i)), nil))
	}
	gate.resume()
	eventually(t, "the relist", func() bool { return len(inf.Lister().List(nil)) == 12 })
	eventually(t, "the notifications", func() bool { return h.len() >= 11 })
	got := h.take()
	if len(got) != 11 {
		t.Errorf("got %d notifications, want 11: %q\nrequests %q", len(got), got, log.all())
	}
	if !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, "delete default/a ") }) {
		t.Errorf("the missed delete was not told: %q", got)
	}
	if n := log.count("sendInitialEvents=true"); n != 2 {
		t.Errorf("%d watch lists, want 2 (the initial one and the relist): %q", n, log.all())
	}
	if n := log.count("watch=true", "resourceVersion="); n < 1 {
		t.Errorf("no resumed watch: %q", log.all())
	}
}

// gatedLW holds new watches while paused, after stopping the open ones:
// a client that was away while the server moved on.
type gatedLW struct {
	inner ListerWatcher
	mu    sync.Mutex
	gate  chan struct{}
	open  []watch.Interface
}

func (g *gatedLW) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	return g.inner.List(ctx, opts)
}

func (g *gatedLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	g.mu.Lock()
	gate := g.gate
	g.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	w, err := g.inner.Watch(ctx, opts)
	if err == nil {
		g.mu.Lock()
		g.open = append(g.open, w)
		g.mu.Unlock()
	}
	return w, err
}

func (g *gatedLW) pause() {
	g.mu.Lock()
	g.gate = make(chan struct{})
	open := g.open
	g.open = nil
	g.mu.Unlock()
	for _, w := range open {
		w.Stop()
	}
}

func (g *gatedLW) resume() {
	g.mu.Lock()
	close(g.gate)
	g.gate = nil
	g.mu.Unlock()
}
