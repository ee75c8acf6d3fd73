package cache

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

type CM = *corev1.ConfigMap

// calls records what a handler is told, as text:
// "add ns/name@rv [initial]", "update ns/name@old->new",
// "delete ns/name@rv".
type calls[T Object] struct {
	mu  sync.Mutex
	got []string
	// pairs keeps update pairs, to check old == new on resync.
	pairs [][2]T
}

func (c *calls[T]) record(s string) {
	c.mu.Lock()
	c.got = append(c.got, s)
	c.mu.Unlock()
}

func (c *calls[T]) OnAdd(o T, initial bool) {
	s := "add " + Key(o) + "@" + o.GetResourceVersion()
	if initial {
		s += " initial"
	}
	c.record(s)
}

func (c *calls[T]) OnUpdate(old, new T) {
	c.mu.Lock()
	c.pairs = append(c.pairs, [2]T{old, new})
	c.mu.Unlock()
	c.record(fmt.Sprintf("update %s@%s->%s", Key(new), old.GetResourceVersion(), new.GetResourceVersion()))
}

func (c *calls[T]) OnDelete(o T) { c.record("delete " + Key(o) + "@" + o.GetResourceVersion()) }

func (c *calls[T]) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	g := c.got
	c.got = nil
	return g
}

// runInformer runs inf until the test ends.
func runInformer[T Object](t *testing.T, inf *Informer[T]) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
}

func quietOpts() InformerOptions[CM] {
	return InformerOptions[CM]{ReflectorOptions: ReflectorOptions[CM]{Logger: discardLogger(), Rand: func() float64 { return 0 }}}
}

// streamState feeds a WatchList stream the objects and its end bookmark.
func streamState(w *watch.RaceFreeFakeWatcher, rv string, objs ...CM) {
	for _, o := range objs {
		w.Add(o)
	}
	w.Action(watch.Bookmark, bookmark(rv, true))
}

func TestInformerRelistTellsOnlyChanges(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := &fakeLW{}
		inf := NewInformer[CM](lw, quietOpts())
		h := &calls[CM]{}
		if _, err := inf.AddHandler(h, HandlerOptions{}); err != nil {
			t.Fatal(err)
		}
		runInformer(t, inf)
		synctest.Wait()
		streamState(lw.lastWatch(), "3", cm("a", "x", "1"), cm("a", "y", "2"), cm("a", "z", "3"))
		synctest.Wait()
		if !inf.HasSynced() {
			t.Fatal("not synced after the initial-events-end bookmark")
		}
		eq(t, "initial", h.take(), []string{"add a/x@1 initial", "add a/y@2 initial", "add a/z@3 initial"})

		// The watch expires; the relist finds y changed, z gone, w new.
		lw.lastWatch().Error(expiredStatus())
		synctest.Wait()
		streamState(lw.lastWatch(), "9", cm("a", "x", "1"), cm("a", "y", "5"), cm("a", "w", "6"))
		synctest.Wait()
		eq(t, "after relist", h.take(), []string{"update a/y@2->5", "add a/w@6", "delete a/z@3"})
		eq(t, "store", names(inf.Lister().List(nil)), []string{"a/w", "a/x", "a/y"})
	})
}

func TestInformerWatchDeleteCarriesFinalState(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := &fakeLW{}
		inf := NewInformer[CM](lw, quietOpts())
		h := &calls[CM]{}
		inf.AddHandler(h, HandlerOptions{})
		runInformer(t, inf)
		synctest.Wait()
		streamState(lw.lastWatch(), "1", cm("a", "x", "1"))
		synctest.Wait()
		w := lw.lastWatch()
		w.Delete(cm("a", "x", "4"))
		w.Delete(cm("a", "never-seen", "5")) // nothing to tell
		w.Modify(cm("a", "x2", "6"))         // unknown key: an add
		synctest.Wait()
		eq(t, "calls", h.take(), []string{"add a/x@1 initial", "delete a/x@4", "add a/x2@6"})
	})
}

func TestInformerLateHandlerGetsCurrentState(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := &fakeLW{}
		inf := NewInformer[CM](lw, quietOpts())
		runInformer(t, inf)
		synctest.Wait()
		streamState(lw.lastWatch(), "2", cm("a", "x", "1"), cm("b", "y", "2"))
		lw.lastWatch().Modify(cm("a", "x", "3"))
		synctest.Wait()

		h := &calls[CM]{}
		release := make(chan struct{})
		blocking := HandlerFuncs[CM]{AddFunc: func(o CM, initial bool) { <-release; h.OnAdd(o, initial) },
			UpdateFunc: h.OnUpdate, DeleteFunc: h.OnDelete}
		reg, err := inf.AddHandler(blocking, HandlerOptions{Name: "late"})
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if reg.HasSynced() {
			t.Error("handler synced before it was told the current state")
		}
		close(release)
		synctest.Wait()
		if !reg.HasSynced() {
			t.Error("handler not synced after the current state")
		}
		got := h.take()
		slicesSort(got)
		eq(t, "late handler", got, []string{"add a/x@3 initial", "add b/y@2 initial"})

		lw.lastWatch().Delete(cm("b", "y", "4"))
		synctest.Wait()
		eq(t, "then changes", h.take(), []string{"delete b/y@4"})

		reg.Remove()
		lw.lastWatch().Add(cm("c", "z", "5"))
		synctest.Wait()
		eq(t, "after Remove", h.take(), nil)
	})
}

func TestInformerHandlerSyncWaitsForDelivery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := &fakeLW{}
		inf := NewInformer[CM](lw, quietOpts())
		release := make(chan struct{})
		reg, _ := inf.AddHandler(HandlerFuncs[CM]{AddFunc: func(CM, bool) { <-release }}, HandlerOptions{})
		runInformer(t, inf)
		synctest.Wait()
		streamState(lw.lastWatch(), "2", cm("a", "x", "1"), cm("a", "y", "2"))
		synctest.Wait()
		if !inf.HasSynced() || reg.HasSynced() {
			t.Errorf("informer synced %v (want true), handler synced %v (want false)", inf.HasSynced(), reg.HasSynced())
		}
		close(release)
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if !WaitForCacheSync(ctx, inf, reg) {
			t.Error("WaitForCacheSync false after delivery")
		}
	})
}

func TestInformerResync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := &fakeLW{}
		opts := quietOpts()
		opts.ResyncPeriod = time.Minute
		inf := NewInformer[CM](lw, opts)
		h, fast := &calls[CM]{}, &calls[CM]{}
		inf.AddHandler(h, HandlerOptions{})
		inf.AddHandler(fast, HandlerOptions{ResyncPeriod: 10 * time.Second})
		runInformer(t, inf)
		synctest.Wait()
		streamState(lw.lastWatch(), "1", cm("a", "x", "1"))
		synctest.Wait()
		h.take()
		fast.take()
		time.Sleep(30 * time.Second)
		synctest.Wait()
		eq(t, "fast handler after 30s", fast.take(), []string{"update a/x@1->1", "update a/x@1->1", "update a/x@1->1"})
		eq(t, "handler after 30s", h.take(), nil)
		time.Sleep(30 * time.Second)
		synctest.Wait()
		eq(t, "handler after a minute", h.take(), []string{"update a/x@1->1"})
		if p := h.pairs[0]; p[0] != p[1] {
			t.Error("resync old and new are different objects")
		}
	})
}

func TestInformerTransformAndManagedFields(t *testing.T) {
	withFields := func() CM {
		c := cm("a", "x", "1", "big", strings.Repeat("x", 100))
		c.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply}}
		return c
	}
	tests := []struct {
		name       string
		keep       bool
		transform  func(CM) (CM, error)
		wantFields int
		wantData   bool
	}{
		{"managedFields dropped by default", false, nil, 0, true},
		{"managedFields kept on request", true, nil, 1, true},
		{"transform runs after the drop", false, func(c CM) (CM, error) {
			if len(c.ManagedFields) != 0 {
				return nil, errors.New("managedFields not dropped first")
			}
			c.Data = nil
			return c, nil
		}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				lw := &fakeLW{}
				lw.setList(func(context.Context, metav1.ListOptions) (runtime.Object, error) {
					return cmList("1", "", withFields()), nil
				})
				opts := quietOpts()
				opts.DisableWatchList = true
				opts.KeepManagedFields = tt.keep
				opts.Transform = tt.transform
				inf := NewInformer[CM](lw, opts)
				runInformer(t, inf)
				synctest.Wait()
				lw.lastWatch().Modify(withFields())
				synctest.Wait()
				got, ok := inf.Lister().Namespace("a").Get("x")
				if !ok {
					t.Fatalf("not cached; last error %v", inf.LastError())
				}
				if len(got.ManagedFields) != tt.wantFields || (got.Data != nil) != tt.wantData {
					t.Errorf("cached managedFields %d data %v", len(got.ManagedFields), got.Data != nil)
				}
			})
		})
	}
}

func TestInformerMutationDetection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := &fakeLW{}
		var mu sync.Mutex
		var found []error
		opts := quietOpts()
		opts.CheckMutations = true
		opts.OnMutation = func(err error) { mu.Lock(); found = append(found, err); mu.Unlock() }
		inf := NewInformer[CM](lw, opts)
		// One handler only: a second one reading the object while the
		// first writes it would be a data race, which -race reports
		// before checked mode can.
		inf.AddHandler(HandlerFuncs[CM]{UpdateFunc: func(_, new CM) {
			new.Labels = map[string]string{"touched": "yes"} // the bug
		}}, HandlerOptions{Name: "mutator"})
		runInformer(t, inf)
		synctest.Wait()
		streamState(lw.lastWatch(), "1", cm("a", "x", "1"))
		synctest.Wait()
		lw.lastWatch().Modify(cm("a", "x", "2"))
		synctest.Wait()
		mu.Lock()
		defer mu.Unlock()
		if len(found) == 0 {
			t.Fatal("mutation not detected")
		}
		var me *MutationError
		if !errors.As(found[0], &me) || me.Key != "a/x" || me.Where != "by handler mutator" {
			t.Errorf("found %v", found[0])
		}
	})
}

func TestInformerPendingMetric(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := &fakeLW{}
		reg := prometheus.NewPedanticRegistry()
		opts := quietOpts()
		opts.Name = "configmaps"
		opts.Registerer = reg
		inf := NewInformer[CM](lw, opts)
		release := make(chan struct{})
		slow, _ := inf.AddHandler(HandlerFuncs[CM]{AddFunc: func(CM, bool) { <-release }}, HandlerOptions{Name: "slow"})
		inf.AddHandler(HandlerFuncs[CM]{}, HandlerOptions{Name: "fast"})
		other := NewInformer[CM](&fakeLW{}, InformerOptions[CM]{ReflectorOptions: ReflectorOptions[CM]{Name: "other", Logger: discardLogger()}, Registerer: reg})
		other.AddHandler(HandlerFuncs[CM]{}, HandlerOptions{Name: "h"})
		runInformer(t, inf)
		runInformer(t, other)
		synctest.Wait()
		var objs []CM
		for i := range 5 {
			objs = append(objs, cm("a", fmt.Sprint(i), "1"))
		}
		streamState(lw.lastWatch(), "1", objs...)
		for range 20 {
			lw.lastWatch().Modify(cm("a", "3", fmt.Sprint(time.Now().UnixNano())))
		}
		synctest.Wait()
		// The slow handler holds one add; four keys wait, whatever the
		// number of events.
		if got := slow.Pending(); got != 4 {
			t.Errorf("Pending() = %d, want 4", got)
		}
		want := `
# HELP informer_handler_pending Notifications waiting for an informer's handler, after coalescing by key.
# TYPE informer_handler_pending gauge
informer_handler_pending{handler="fast",informer="configmaps"} 0
informer_handler_pending{handler="h",informer="other"} 0
informer_handler_pending{handler="slow",informer="configmaps"} 4
`
		if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "informer_handler_pending"); err != nil {
			t.Error(err)
		}
		close(release)
	})
}

func TestWaitForSyncSaysWhy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := &fakeLW{}
		notFound := apierrors.NewNotFound(groupResource("widgets.example.com"), "")
		lw.setList(func(context.Context, metav1.ListOptions) (runtime.Object, error) { return nil, notFound })
		opts := quietOpts()
		opts.Name = "widgets"
		opts.DisableWatchList = true
		inf := NewInformer[CM](lw, opts)
		runInformer(t, inf)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err := WaitForSync(ctx, inf)
		if err == nil || !strings.Contains(err.Error(), "widgets not synced") || !apierrors.IsNotFound(errors.Unwrap(lastJoined(err))) {
			t.Errorf("WaitForSync = %v", err)
		}
	})
}

func lastJoined(err error) error {
	errs := err.(interface{ Unwrap() []error }).Unwrap()
	return errs[len(errs)-1]
}
