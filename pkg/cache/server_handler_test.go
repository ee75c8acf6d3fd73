package cache_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/setpoint-dev/setpoint/pkg/cache"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// TestServerSlowHandlerCoalesces blocks a handler while one object is
// updated 50 times and another is created and deleted: the handler's
// buffer holds one entry, the gauge says so, and once released the
// handler gets one update from the state it saw to the latest, and never
// hears of the short-lived object. A fast handler beside it keeps up.
func TestServerSlowHandlerCoalesces(t *testing.T) {
	srv := apiservertest.Start(t)
	w := newWriter(t, srv.Config)
	w.namespace("slow")
	reg := prometheus.NewPedanticRegistry()
	opts := serverOpts[cache.CM]("configmaps")
	opts.Registerer = reg
	inf := cache.NewInformer[cache.CM](cmLW(t, srv.Config, "slow"), opts)

	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	slow := &calls[cache.CM]{}
	slowReg, _ := inf.AddHandler(cache.HandlerFuncs[cache.CM]{
		AddFunc: func(o cache.CM, initial bool) {
			slow.OnAdd(o, initial)
			once.Do(func() { close(entered); <-release })
		},
		UpdateFunc: slow.OnUpdate, DeleteFunc: slow.OnDelete,
	}, cache.HandlerOptions{Name: "slow"})
	fast := &calls[cache.CM]{}
	inf.AddHandler(fast, cache.HandlerOptions{Name: "fast"})
	runInformer(t, inf)
	var releaseOnce sync.Once
	unblock := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(unblock) // before the informer's cleanup, which waits for handlers
	syncOrFail(t, inf)

	hot := newCM("slow", "hot", nil, "n", "0")
	w.create(hot)
	<-entered // the slow handler is stuck in OnAdd(hot)
	first := hot.ResourceVersion
	brief := newCM("slow", "brief", nil)
	w.create(brief)
	w.delete(brief)
	for i := 1; i <= 50; i++ {
		hot.Data = map[string]string{"n": fmt.Sprint(i)}
		w.update(hot)
	}
	last := hot.ResourceVersion
	envtest.EventuallyTrue(t, "the cache to see the last update", func() bool {
		o, ok := inf.Lister().Namespace("slow").Get("hot")
		return ok && o.ResourceVersion == last
	})
	envtest.EventuallyTrue(t, "the fast handler", func() bool { return strings.HasSuffix(fast.last(), "->"+last) })
	if got := slowReg.Pending(); got != 1 {
		t.Errorf("slow handler pending %d, want 1", got)
	}
	want := `
# HELP informer_handler_pending Notifications waiting for an informer's handler, after coalescing by key.
# TYPE informer_handler_pending gauge
informer_handler_pending{handler="fast",informer="configmaps"} 0
informer_handler_pending{handler="slow",informer="configmaps"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "informer_handler_pending"); err != nil {
		t.Error(err)
	}
	unblock()
	envtest.EventuallyTrue(t, "the slow handler", func() bool { return slowReg.Pending() == 0 && slow.len() == 2 })
	time.Sleep(20 * time.Millisecond) // nothing else may come
	eq(t, "slow handler", slow.take(), []string{"add slow/hot@" + first, fmt.Sprintf("update slow/hot@%s->%s", first, last)})
}

// TestServerLateHandler adds a handler to a synced informer: it gets the
// current state as initial adds, then live changes.
func TestServerLateHandler(t *testing.T) {
	srv := apiservertest.Start(t)
	w := newWriter(t, srv.Config)
	a, b := newCM("default", "a", nil), newCM("default", "b", nil)
	w.create(a)
	w.create(b)
	inf := cache.NewInformer[cache.CM](cmLW(t, srv.Config, "default"), serverOpts[cache.CM]("late"))
	runInformer(t, inf)
	syncOrFail(t, inf)
	w.delete(b)
	envtest.EventuallyTrue(t, "the delete", func() bool { return len(inf.Lister().List(nil)) == 1 })

	h := &calls[cache.CM]{}
	reg, err := inf.AddHandler(h, cache.HandlerOptions{Name: "late"})
	if err != nil {
		t.Fatal(err)
	}
	syncOrFail(t, reg)
	eq(t, "late handler", h.take(), []string{"add default/a@" + a.ResourceVersion + " initial"})
	c := newCM("default", "c", nil)
	w.create(c)
	envtest.EventuallyTrue(t, "a live add", func() bool { return h.len() == 1 })
	eq(t, "then", h.take(), []string{"add default/c@" + c.ResourceVersion})
}

// TestServerMutationDetected catches a handler that modifies what it is
// given, naming the handler and the object.
func TestServerMutationDetected(t *testing.T) {
	srv := apiservertest.Start(t)
	newWriter(t, srv.Config).create(newCM("default", "victim", nil))
	var mu sync.Mutex
	var found []error
	opts := serverOpts[cache.CM]("checked")
	opts.CheckMutations = true
	opts.OnMutation = func(err error) { mu.Lock(); found = append(found, err); mu.Unlock() }
	inf := cache.NewInformer[cache.CM](cmLW(t, srv.Config, "default"), opts)
	inf.AddHandler(cache.HandlerFuncs[cache.CM]{AddFunc: func(o cache.CM, _ bool) {
		o.SetLabels(map[string]string{"oops": "true"}) // should have been o.DeepCopy()
	}}, cache.HandlerOptions{Name: "careless"})
	runInformer(t, inf)
	syncOrFail(t, inf)
	envtest.EventuallyTrue(t, "detection", func() bool { mu.Lock(); defer mu.Unlock(); return len(found) > 0 })
	var me *cache.MutationError
	if !errors.As(found[0], &me) || me.Key != "default/victim" || me.Where != "by handler careless" {
		t.Errorf("found %v", found[0])
	}
}

// TestServerTransform: managedFields go by default, a Transform trims
// more, and the lister serves the trimmed objects.
func TestServerTransform(t *testing.T) {
	srv := apiservertest.Start(t)
	seedConfigMaps(t, srv.Storage, "default", 3)
	opts := serverOpts[cache.CM]("trim")
	opts.Transform = func(o cache.CM) (cache.CM, error) {
		o.Data = nil
		o.Annotations = map[string]string{"trimmed": "yes"}
		return o, nil
	}
	inf := cache.NewInformer[cache.CM](cmLW(t, srv.Config, "default"), opts)
	runInformer(t, inf)
	syncOrFail(t, inf)
	objs := inf.Lister().List(nil)
	if len(objs) != 3 {
		t.Errorf("cached %d objects, want 3", len(objs))
	}
	for _, o := range objs {
		if len(o.ManagedFields) != 0 || o.Data != nil || o.Annotations["trimmed"] != "yes" {
			t.Errorf("%s not trimmed: %+v", cache.Key(o), o)
		}
	}
}

// TestServerResync re-delivers every object as an update with old == new.
func TestServerResync(t *testing.T) {
	srv := apiservertest.Start(t)
	newWriter(t, srv.Config).create(newCM("default", "a", nil))
	opts := serverOpts[cache.CM]("resync")
	opts.ResyncPeriod = 50 * time.Millisecond
	inf := cache.NewInformer[cache.CM](cmLW(t, srv.Config, "default"), opts)
	var mu sync.Mutex
	same := 0
	inf.AddHandler(cache.HandlerFuncs[cache.CM]{UpdateFunc: func(old, new cache.CM) {
		mu.Lock()
		defer mu.Unlock()
		if old == new {
			same++
		}
	}}, cache.HandlerOptions{})
	runInformer(t, inf)
	syncOrFail(t, inf)
	envtest.EventuallyTrue(t, "two resyncs", func() bool { mu.Lock(); defer mu.Unlock(); return same >= 2 })
}

// TestServerScopes: namespace, label and field scoped informers see only
// their objects; an object relabelled out of a selector is deleted from
// the selector's view, and relabelled in is added.
func TestServerScopes(t *testing.T) {
	srv := apiservertest.Start(t)
	w := newWriter(t, srv.Config)
	w.namespace("one")
	w.namespace("two")
	staying := newCM("one", "web", map[string]string{"app": "web"})
	w.create(staying)
	w.create(newCM("one", "db", map[string]string{"app": "db"}))
	moving := newCM("two", "web", map[string]string{"app": "web"})
	w.create(moving)

	var handlers []cache.Syncer
	scoped := func(name, ns, labels, fields string) (*cache.Informer[cache.CM], *calls[cache.CM]) {
		opts := serverOpts[cache.CM](name)
		opts.LabelSelector, opts.FieldSelector = labels, fields
		inf := cache.NewInformer[cache.CM](cmLW(t, srv.Config, ns), opts)
		h := &calls[cache.CM]{}
		reg, err := inf.AddHandler(h, cache.HandlerOptions{})
		if err != nil {
			t.Fatal(err)
		}
		handlers = append(handlers, reg)
		runInformer(t, inf)
		return inf, h
	}
	nsInf, _ := scoped("ns", "one", "", "")
	webInf, webCalls := scoped("web", "", "app=web", "")
	nameInf, _ := scoped("name", "", "", "metadata.name=db")
	syncOrFail(t, nsInf, webInf, nameInf)
	for _, tt := range []struct {
		inf  *cache.Informer[cache.CM]
		want []string
	}{
		{nsInf, []string{"one/db", "one/web"}},
		{webInf, []string{"one/web", "two/web"}},
		{nameInf, []string{"one/db"}},
	} {
		eq(t, tt.inf.Name(), keys(tt.inf.Lister().List(nil)), tt.want)
	}
	// The handler must have had its initial adds before the relabelling,
	// or they would be counted as its effects.
	syncOrFail(t, handlers...)
	eq(t, "web handler", sorted(webCalls.take()), []string{
		"add one/web@" + staying.ResourceVersion + " initial",
		"add two/web@" + moving.ResourceVersion + " initial",
	})

	moving.Labels = map[string]string{"app": "other"}
	w.update(moving)
	envtest.EventuallyTrue(t, "leaving the selector", func() bool { return webCalls.len() == 1 })
	moving.Labels = map[string]string{"app": "web"}
	w.update(moving)
	envtest.EventuallyTrue(t, "entering it again", func() bool { return webCalls.len() == 2 })
	got := webCalls.take()
	if len(got) != 2 || !strings.HasPrefix(got[0], "delete two/web@") || got[1] != "add two/web@"+moving.ResourceVersion {
		t.Errorf("relabelling: %q", got)
	}
	if _, ok := webInf.Lister().Namespace("two").Get("web"); !ok {
		t.Error("the relabelled object is not back in the selector's view")
	}
}
