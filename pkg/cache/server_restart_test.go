package cache_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/setpoint-dev/setpoint/pkg/cache"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
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
	// The restarted server has a new address and credentials, so the
	// informer's ListerWatcher is switched to a client for it.
	var log requestLog
	lw := &switchLW{}
	lw.point(cmLW(t, log.wrap(srv1.Config), "default"))
	w := newWriter(t, srv1.Config)
	keep, change, gone := newCM("default", "keep", nil, "v", "1"), newCM("default", "change", nil, "v", "1"), newCM("default", "gone", nil, "v", "1")
	for _, o := range []cache.CM{keep, change, gone} {
		w.create(o)
	}

	inf := cache.NewInformer[cache.CM](lw, serverOpts[cache.CM]("restart"))
	h := &calls[cache.CM]{}
	inf.AddHandler(h, cache.HandlerOptions{})
	runInformer(t, inf)
	syncOrFail(t, inf)
	envtest.EventuallyTrue(t, "initial adds", func() bool { return h.len() == 3 })
	h.take()

	stop1()
	// Behind the server's back: one update, one create, one delete.
	ctx := context.Background()
	kv, err := store.Get(ctx, storeKey("default", "change"))
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := json.Unmarshal(kv.Value, &obj); err != nil {
		t.Fatal(err)
	}
	obj["data"] = map[string]any{"v": "2"}
	b, _ := json.Marshal(obj)
	changedRev, err := store.Update(ctx, storeKey("default", "change"), b, 0)
	if err != nil {
		t.Fatal(err)
	}
	created := newCM("default", "new", nil)
	created.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}
	created.UID = "uid-new"
	b, _ = json.Marshal(created)
	createdRev, err := store.Create(ctx, storeKey("default", "new"), b)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := store.Delete(ctx, storeKey("default", "gone"), 0); err != nil {
		t.Fatal(err)
	}

	srv2 := apiservertest.StartWith(t, apiservertest.Options{Storage: store})
	lw.point(cmLW(t, log.wrap(srv2.Config), "default"))
	envtest.EventuallyTrue(t, "the changes", func() bool { return h.len() >= 3 })
	time.Sleep(20 * time.Millisecond) // nothing else may come
	eq(t, "after restart", sorted(h.take()), []string{
		fmt.Sprintf("add default/new@%d", createdRev),
		"delete default/gone@" + gone.ResourceVersion,
		fmt.Sprintf("update default/change@%s->%d", change.ResourceVersion, changedRev),
	})
	// The first server's history is gone: the resumed watch expired and
	// the cache listed again.
	if n := log.count("sendInitialEvents=true"); n != 2 {
		t.Errorf("%d watch lists, want 2: %q", n, log.all())
	}
	if o, ok := inf.Lister().Namespace("default").Get("keep"); !ok || o.ResourceVersion != keep.ResourceVersion {
		t.Errorf("unchanged object: %v %v", o, ok)
	}
	if o, ok := inf.Lister().Namespace("default").Get("change"); !ok || o.Data["v"] != "2" {
		t.Errorf("changed object: %v %v", o, ok)
	}

	// The watch goes on against the new server.
	newWriter(t, srv2.Config).delete(keep)
	envtest.EventuallyTrue(t, "a live delete", func() bool { return h.len() >= 1 })
	// A live delete carries the version of the delete itself.
	if got := h.take(); len(got) != 1 || !strings.HasPrefix(got[0], "delete default/keep@") {
		t.Errorf("live: %q", got)
	}
	if _, ok := inf.Lister().Namespace("default").Get("keep"); ok {
		t.Error("the deleted object is still cached")
	}
}

// switchLW passes calls to whichever ListerWatcher it last pointed to.
type switchLW struct {
	cur atomic.Pointer[cache.ListerWatcher]
}

func (s *switchLW) point(lw cache.ListerWatcher) { s.cur.Store(&lw) }

func (s *switchLW) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	return (*s.cur.Load()).List(ctx, opts)
}

func (s *switchLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return (*s.cur.Load()).Watch(ctx, opts)
}

// TestServerRelistOn410 makes the server forget the history a paused
// watch needs (tiny CacheLimits), then lets the watch resume: the server
// answers 410 Expired, and the cache relists and tells handlers the
// deletes it missed.
func TestServerRelistOn410(t *testing.T) {
	srv := apiservertest.StartWith(t, apiservertest.Options{Configure: func(c *apiserver.Config) {
		c.CacheLimits = watchcache.Limits{MaxEvents: 5, MaxBytes: 1 << 20, WatchBuffer: 64}
	}})
	w := newWriter(t, srv.Config)
	var objs []cache.CM
	for _, n := range []string{"a", "b", "c"} {
		o := newCM("default", n, nil)
		w.create(o)
		objs = append(objs, o)
	}
	var log requestLog
	gate := &gatedLW{inner: cmLW(t, log.wrap(srv.Config), "default")}
	inf := cache.NewInformer[cache.CM](gate, serverOpts[cache.CM]("expire"))
	h := &calls[cache.CM]{}
	inf.AddHandler(h, cache.HandlerOptions{})
	runInformer(t, inf)
	syncOrFail(t, inf)
	envtest.EventuallyTrue(t, "initial adds", func() bool { return h.len() == 3 })
	h.take()

	gate.pause()
	w.delete(objs[0])
	want := []string{"delete default/a@" + objs[0].ResourceVersion}
	for i := range 10 { // push the delete out of the server's history
		o := newCM("default", fmt.Sprintf("x%d", i), nil)
		w.create(o)
		want = append(want, "add default/"+o.Name+"@"+o.ResourceVersion)
	}
	gate.resume()
	envtest.EventuallyTrue(t, "the relist", func() bool { return len(inf.Lister().List(nil)) == 12 })
	envtest.EventuallyTrue(t, "the notifications", func() bool { return h.len() >= 11 })
	time.Sleep(20 * time.Millisecond) // nothing else may come
	if got := sorted(h.take()); !slices.Equal(got, sorted(want)) {
		t.Errorf("notifications\n got %q\nwant %q\nrequests %q", got, sorted(want), log.all())
	}
	if n := log.count("sendInitialEvents=true"); n != 2 {
		t.Errorf("%d watch lists, want 2 (the initial one and the relist): %q", n, log.all())
	}
	// The resumed watch, refused with 410, is what made the cache list
	// again.
	if n := log.count("watch=true", "resourceVersion=", "!sendInitialEvents"); n < 1 {
		t.Errorf("no resumed watch: %q", log.all())
	}
}

// gatedLW holds new watches while paused, after cutting the open ones:
// a client that was away while the server moved on. Once pause returns,
// no event reaches the cache until resume, not even one a stopped
// stream had already read.
type gatedLW struct {
	inner cache.ListerWatcher
	mu    sync.Mutex
	gate  chan struct{}
	open  []*cutWatch
}

func (g *gatedLW) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	return g.inner.List(ctx, opts)
}

func (g *gatedLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	for {
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
		inner, err := g.inner.Watch(ctx, opts)
		if err != nil {
			return nil, err
		}
		g.mu.Lock()
		if g.gate != nil { // paused while this watch was opening
			g.mu.Unlock()
			inner.Stop()
			continue
		}
		w := newCutWatch(inner)
		g.open = append(g.open, w)
		g.mu.Unlock()
		return w, nil
	}
}

func (g *gatedLW) pause() {
	g.mu.Lock()
	g.gate = make(chan struct{})
	open := g.open
	g.open = nil
	g.mu.Unlock()
	for _, w := range open {
		w.cutAndWait()
	}
}

func (g *gatedLW) resume() {
	g.mu.Lock()
	close(g.gate)
	g.gate = nil
	g.mu.Unlock()
}

// cutWatch forwards a watch's events until it is cut. A stopped stream
// may still hand over an event it had read (its send races its stop),
// so cutting waits for the forwarder to be gone.
type cutWatch struct {
	inner  watch.Interface
	out    chan watch.Event
	cut    chan struct{}
	once   sync.Once
	exited chan struct{}
}

func newCutWatch(inner watch.Interface) *cutWatch {
	w := &cutWatch{inner: inner, out: make(chan watch.Event), cut: make(chan struct{}), exited: make(chan struct{})}
	go w.forward()
	return w
}

func (w *cutWatch) forward() {
	defer close(w.exited)
	defer close(w.out)
	for {
		select {
		case <-w.cut:
			return
		case ev, ok := <-w.inner.ResultChan():
			if !ok {
				return
			}
			select {
			case w.out <- ev:
			case <-w.cut:
				return
			}
		}
	}
}

func (w *cutWatch) ResultChan() <-chan watch.Event { return w.out }

func (w *cutWatch) Stop() {
	w.once.Do(func() {
		close(w.cut)
		w.inner.Stop()
	})
}

func (w *cutWatch) cutAndWait() {
	w.Stop()
	<-w.exited
}
