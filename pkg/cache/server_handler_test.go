package cache

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/setpoint-dev/setpoint/pkg/apiserver/apiservertest"
)

// TestServerSlowHandlerCoalesces blocks a handler while one object is
// updated 50 times and another is created and deleted: the handler's
// buffer holds one entry, the gauge says so, and once released the
// handler gets one update from the state it saw to the latest, and never
// hears of the short-lived object. A fast handler beside it keeps up.
func TestServerSlowHandlerCoalesces(t *testing.T) {
	srv := apiservertest.Start(t)
	c := newClient(t, srv.Config)
	c.namespace("slow")
	reg := prometheus.NewPedanticRegistry()
	opts := serverOpts("configmaps")
	opts.Registerer = reg
	inf := NewInformer[U](newDynLW(t, srv.Config, "slow"), opts)

	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	slow := &ucalls{}
	slowReg, _ := inf.AddHandler(HandlerFuncs[U]{
		AddFunc: func(o U, initial bool) {
			slow.OnAdd(o, initial)
			once.Do(func() { close(entered); <-release })
		},
		UpdateFunc: slow.OnUpdate, DeleteFunc: slow.OnDelete,
	}, HandlerOptions{Name: "slow"})
	fast := &ucalls{}
	inf.AddHandler(fast, HandlerOptions{Name: "fast"})
	runInformer(t, inf)
	var releaseOnce sync.Once
	unblock := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(unblock) // before the informer's cleanup, which waits for handlers
	syncOrFail(t, inf)

	hot := c.create(newCM("slow", "hot", nil, "n", "0"))
	<-entered // the slow handler is stuck in OnAdd(hot)
	first := hot.GetResourceVersion()
	c.create(newCM("slow", "brief", nil))
	c.delete("slow", "brief")
	for i := 1; i <= 50; i++ {
		hot.Object["data"] = map[string]any{"n": fmt.Sprint(i)}
		hot = c.update(hot)
	}
	last := hot.GetResourceVersion()
	eventually(t, "the cache to see the last update", func() bool {
		o, ok := inf.Lister().Namespace("slow").Get("hot")
		return ok && o.GetResourceVersion() == last
	})
	eventually(t, "the fast handler", func() bool {
		fast.mu.Lock()
		defer fast.mu.Unlock()
		return len(fast.got) > 0 && strings.HasSuffix(fast.got[len(fast.got)-1], "->"+last)
	})
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
	eventually(t, "the slow handler", func() bool { return slowReg.Pending() == 0 && slow.len() == 2 })
	time.Sleep(20 * time.Millisecond) // nothing else may come
	eq(t, "slow handler", slow.take(), []string{"add slow/hot", fmt.Sprintf("update slow/hot %s->%s", first, last)})
}

// TestServerLateHandler adds a handler to a synced informer: it gets the
// current state as initial adds, then live changes.
func TestServerLateHandler(t *testing.T) {
	srv := apiservertest.Start(t)
	c := newClient(t, srv.Config)
	c.create(newCM("default", "a", nil))
	c.create(newCM("default", "b", nil))
	inf := NewInformer[U](newDynLW(t, srv.Config, "default"), serverOpts("late"))
	runInformer(t, inf)
	syncOrFail(t, inf)
	c.delete("default", "b")
	eventually(t, "the delete", func() bool { return len(inf.Lister().List(nil)) == 1 })

	h := &ucalls{}
	reg, err := inf.AddHandler(h, HandlerOptions{Name: "late"})
	if err != nil {
		t.Fatal(err)
	}
	syncOrFail(t, reg)
	eq(t, "late handler", h.take(), []string{"add default/a initial"})
	c.create(newCM("default", "c", nil))
	eventually(t, "a live add", func() bool { return h.len() == 1 })
	eq(t, "then", h.take(), []string{"add default/c"})
}

// TestServerMutationDetected catches a handler that modifies what it is
// given, naming the handler and the object.
func TestServerMutationDetected(t *testing.T) {
	srv := apiservertest.Start(t)
	c := newClient(t, srv.Config)
	c.create(newCM("default", "victim", nil))
	var mu sync.Mutex
	var found []error
	opts := serverOpts("checked")
	opts.CheckMutations = true
	opts.OnMutation = func(err error) { mu.Lock(); found = append(found, err); mu.Unlock() }
	inf := NewInformer[U](newDynLW(t, srv.Config, "default"), opts)
	inf.AddHandler(HandlerFuncs[U]{AddFunc: func(o U, _ bool) {
		o.SetLabels(map[string]string{"oops": "true"}) // should have been o.DeepCopy()
	}}, HandlerOptions{Name: "careless"})
	runInformer(t, inf)
	syncOrFail(t, inf)
	eventually(t, "detection", func() bool { mu.Lock(); defer mu.Unlock(); return len(found) > 0 })
	var me *MutationError
	if !errors.As(found[0], &me) || me.Key != "default/victim" || me.Where != "by handler careless" {
		t.Errorf("found %v", found[0])
	}
}

// TestServerTransform: managedFields go by default, a Transform trims
// more, and the lister serves the trimmed objects.
func TestServerTransform(t *testing.T) {
	srv := apiservertest.Start(t)
	seedConfigMaps(t, srv.Storage, "default", 3)
	opts := serverOpts("trim")
	opts.Transform = func(u U) (U, error) {
		delete(u.Object, "data")
		u.SetAnnotations(map[string]string{"trimmed": "yes"})
		return u, nil
	}
	inf := NewInformer[U](newDynLW(t, srv.Config, "default"), opts)
	runInformer(t, inf)
	syncOrFail(t, inf)
	for _, o := range inf.Lister().List(nil) {
		if len(o.GetManagedFields()) != 0 || o.Object["data"] != nil || o.GetAnnotations()["trimmed"] != "yes" {
			t.Errorf("%s not trimmed: %v", Key(o), o.Object)
		}
	}
}

// TestServerResync re-delivers every object as an update with old == new.
func TestServerResync(t *testing.T) {
	srv := apiservertest.Start(t)
	c := newClient(t, srv.Config)
	c.create(newCM("default", "a", nil))
	opts := serverOpts("resync")
	opts.ResyncPeriod = 50 * time.Millisecond
	inf := NewInformer[U](newDynLW(t, srv.Config, "default"), opts)
	var mu sync.Mutex
	same := 0
	inf.AddHandler(HandlerFuncs[U]{UpdateFunc: func(old, new U) {
		mu.Lock()
		defer mu.Unlock()
		if old == new {
			same++
		}
	}}, HandlerOptions{})
	runInformer(t, inf)
	syncOrFail(t, inf)
	eventually(t, "two resyncs", func() bool { mu.Lock(); defer mu.Unlock(); return same >= 2 })
}

// TestServerScopes: namespace, label and field scoped informers see only
// their objects; an object relabelled out of a selector is deleted from
// the selector's view, and relabelled in is added.
func TestServerScopes(t *testing.T) {
	srv := apiservertest.Start(t)
	c := newClient(t, srv.Config)
	c.namespace("one")
	c.namespace("two")
	c.create(newCM("one", "web", map[string]string{"app": "web"}))
	c.create(newCM("one", "db", map[string]string{"app": "db"}))
	moving := c.create(newCM("two", "web", map[string]string{"app": "web"}))

	scoped := func(name, ns, labels, fields string) (*Informer[U], *ucalls) {
		opts := serverOpts(name)
		opts.LabelSelector, opts.FieldSelector = labels, fields
		inf := NewInformer[U](newDynLW(t, srv.Config, ns), opts)
		h := &ucalls{}
		inf.AddHandler(h, HandlerOptions{})
		runInformer(t, inf)
		return inf, h
	}
	nsInf, _ := scoped("ns", "one", "", "")
	webInf, webCalls := scoped("web", "", "app=web", "")
	nameInf, _ := scoped("name", "", "", "metadata.name=db")
	syncOrFail(t, nsInf, webInf, nameInf)
	for _, tt := range []struct {
		inf  *Informer[U]
		want []string
	}{
		{nsInf, []string{"one/db", "one/web"}},
		{webInf, []string{"one/web", "two/web"}},
		{nameInf, []string{"one/db"}},
	} {
		eq(t, tt.inf.Name(), keys(tt.inf.Lister().List(nil)), tt.want)
	}
	webCalls.take()

	moving.SetLabels(map[string]string{"app": "other"})
	moving = c.update(moving)
	eventually(t, "leaving the selector", func() bool { return webCalls.len() == 1 })
	moving.SetLabels(map[string]string{"app": "web"})
	c.update(moving)
	eventually(t, "entering it again", func() bool { return webCalls.len() == 2 })
	got := webCalls.take()
	if !strings.HasPrefix(got[0], "delete two/web ") || got[1] != "add two/web" {
		t.Errorf("relabelling: %q", got)
	}
}

func keys(objs []U) []string {
	var out []string
	for _, o := range objs {
		out = append(out, Key(o))
	}
	slices.Sort(out)
	return out
}
