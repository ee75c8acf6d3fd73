package cache

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// startReflector runs a reflector over lw inside a synctest bubble and
// stops it when the test ends, checking that Run returns nil.
func startReflector(t *testing.T, lw ListerWatcher, opts ReflectorOptions[*corev1.ConfigMap]) *recorder {
	t.Helper()
	rec := &recorder{}
	if opts.Logger == nil {
		opts.Logger = discardLogger()
	}
	if opts.Rand == nil {
		opts.Rand = func() float64 { return 0 }
	}
	r := NewReflector(lw, rec.add, opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	synctest.Wait()
	return rec
}

func eq[E comparable](t *testing.T, what string, got, want []E) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s\n got %v\nwant %v", what, got, want)
	}
}

func TestReflectorWatchList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := &fakeLW{}
		rec := startReflector(t, lw, ReflectorOptions[*corev1.ConfigMap]{Rand: func() float64 { return 0.5 }})
		w := lw.lastWatch()
		w.Add(cm("a", "x", "2"))
		w.Add(cm("a", "y", "3"))
		w.Action(watch.Bookmark, bookmark("3", true))
		w.Modify(cm("a", "x", "4"))
		w.Delete(cm("a", "y", "5"))
		w.Action(watch.Bookmark, bookmark("6", false))
		synctest.Wait()
		eq(t, "deltas", rec.take(), []string{"ListStart", "ListItem a/x@2", "ListItem a/y@3", "ListEnd",
			"Upsert a/x@4", "Delete a/y@5"})

		time.Sleep(time.Minute)
		w.Stop() // the server ends the watch at its timeout
		synctest.Wait()
		calls := lw.takeCalls()
		eq(t, "requests", verbs(calls), []string{"watchlist", "watch"})
		first := calls[0].opts
		if first.ResourceVersionMatch != metav1.ResourceVersionMatchNotOlderThan || !first.AllowWatchBookmarks ||
			first.ResourceVersion != "" || *first.TimeoutSeconds != 450 {
			t.Errorf("watch list options: %+v", first)
		}
		second := calls[1].opts
		if second.ResourceVersion != "6" || !second.AllowWatchBookmarks || second.SendInitialEvents != nil ||
			second.ResourceVersionMatch != "" || *second.TimeoutSeconds != 450 {
			t.Errorf("resumed watch options: %+v", second)
		}
	})
}

func TestReflectorWatchTimeoutRange(t *testing.T) {
	for _, tt := range []struct {
		rand float64
		want int64
	}{{0, 300}, {0.5, 450}, {0.999, 599}} {
		r := NewReflector(&fakeLW{}, func(Delta[*corev1.ConfigMap]) {}, ReflectorOptions[*corev1.ConfigMap]{Rand: func() float64 { return tt.rand }})
		if got := *r.watchTimeout(); got != tt.want {
			t.Errorf("rand %v: timeoutSeconds %d, want %d", tt.rand, got, tt.want)
		}
	}
}

// pagedList answers a paged LIST of x, y (page 1) and z (page 2) at rv.
func pagedList(rv string) func(context.Context, metav1.ListOptions) (runtime.Object, error) {
	return func(_ context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		if opts.Continue == "" {
			return cmList(rv, "c1", cm("a", "x", "1"), cm("a", "y", "2")), nil
		}
		return cmList(rv, "", cm("b", "z", "3")), nil
	}
}

func TestReflectorFallbackRemembered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := &fakeLW{}
		lw.setList(pagedList("10"))
		lw.setWatch(func(_ context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			if opts.SendInitialEvents != nil {
				return nil, errRefused()
			}
			return lw.newWatch(), nil
		})
		rec := startReflector(t, lw, ReflectorOptions[*corev1.ConfigMap]{})
		calls := lw.takeCalls()
		eq(t, "requests", verbs(calls), []string{"watchlist", "list", "list", "watch"})
		if calls[1].opts.Limit != 500 || calls[2].opts.Continue != "c1" || calls[3].opts.ResourceVersion != "10" {
			t.Errorf("options: %+v", calls)
		}
		eq(t, "deltas", rec.take(), []string{"ListStart", "ListItem a/x@1", "ListItem a/y@2", "ListItem b/z@3", "ListEnd"})

		// A 410 relists at once, and with LIST: the fallback stuck.
		lw.lastWatch().Error(expiredStatus())
		synctest.Wait()
		eq(t, "requests after 410", verbs(lw.takeCalls()), []string{"list", "list", "watch"})
	})
}

func TestReflectorTransientStreamFailureRetriesStreaming(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := &fakeLW{}
		lw.setList(pagedList("10"))
		var mu sync.Mutex
		failed := false
		lw.setWatch(func(_ context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			mu.Lock()
			defer mu.Unlock()
			if opts.SendInitialEvents != nil && !failed {
				failed = true
				return nil, errConnRefused()
			}
			return lw.newWatch(), nil
		})
		startReflector(t, lw, ReflectorOptions[*corev1.ConfigMap]{})
		eq(t, "requests", verbs(lw.takeCalls()), []string{"watchlist", "list", "list", "watch"})
		lw.lastWatch().Error(expiredStatus())
		synctest.Wait()
		eq(t, "requests after 410", verbs(lw.takeCalls()), []string{"watchlist"})
	})
}

func TestReflectorStreamProtocolErrorFallsBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := &fakeLW{}
		lw.setList(pagedList("10"))
		rec := startReflector(t, lw, ReflectorOptions[*corev1.ConfigMap]{})
		w := lw.lastWatch()
		w.Add(cm("a", "x", "1"))
		w.Modify(cm("a", "x", "2")) // a server that ignored sendInitialEvents
		synctest.Wait()
		eq(t, "requests", verbs(lw.takeCalls()), []string{"watchlist", "list", "list", "watch"})
		// The half-streamed listing is superseded by the paged one,
		// whose end drops whatever it did not list.
		eq(t, "deltas", rec.take(), []string{"ListStart", "ListItem a/x@1",
			"ListStart", "ListItem a/x@1", "ListItem a/y@2", "ListItem b/z@3", "ListEnd"})
	})
}

func TestReflectorExpiredContinueRelistsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := &fakeLW{}
		var mu sync.Mutex
		expire := true
		lw.setList(func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			mu.Lock()
			defer mu.Unlock()
			if opts.Continue != "" && expire {
				expire = false
				return nil, errExpired()
			}
			return pagedList("10")(ctx, opts)
		})
		start := time.Now()
		startReflector(t, lw, ReflectorOptions[*corev1.ConfigMap]{DisableWatchList: true})
		eq(t, "requests", verbs(lw.takeCalls()), []string{"list", "list", "list", "list", "watch"})
		if d := time.Since(start); d != 0 {
			t.Errorf("waited %v", d)
		}
	})
}

func TestReflectorBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := &fakeLW{}
		var mu sync.Mutex
		fail := true
		var times []time.Duration
		start := time.Now()
		lw.setWatch(func(_ context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			mu.Lock()
			defer mu.Unlock()
			times = append(times, time.Since(start))
			if fail {
				return nil, errConnRefused()
			}
			return lw.newWatch(), nil
		})
		startReflector(t, lw, ReflectorOptions[*corev1.ConfigMap]{DisableWatchList: true})
		time.Sleep(100 * time.Second)
		synctest.Wait()
		mu.Lock()
		gaps := gapsOf(times)
		times, fail = nil, false
		mu.Unlock()
		want := []time.Duration{800 * time.Millisecond, 1600 * time.Millisecond, 3200 * time.Millisecond,
			6400 * time.Millisecond, 12800 * time.Millisecond, 25600 * time.Millisecond, 30 * time.Second}
		eq(t, "gaps between failing watches", gaps[:len(want)], want)

		// Healthy for over two minutes: the next failure starts over.
		time.Sleep(31 * time.Second) // the pending retry succeeds
		time.Sleep(3 * time.Minute)
		mu.Lock()
		fail = true
		times = nil
		mu.Unlock()
		start = time.Now()
		lw.lastWatch().Stop() // the healthy watch ends; re-watches fail
		time.Sleep(3 * time.Second)
		synctest.Wait()
		mu.Lock()
		defer mu.Unlock()
		eq(t, "gaps after a healthy spell", gapsOf(times), []time.Duration{800 * time.Millisecond, 1600 * time.Millisecond})
	})
}

func gapsOf(times []time.Duration) []time.Duration {
	var out []time.Duration
	for i := 1; i < len(times); i++ {
		out = append(out, times[i]-times[i-1])
	}
	return out
}

func TestReflectorBackoffJitter(t *testing.T) {
	clock := &stepClock{}
	b := backoffTimer{cfg: DefaultBackoff, clock: clock, rand: func() float64 { return 0.5 }}
	var got []time.Duration
	for range 8 {
		got = append(got, b.next())
	}
	want := []time.Duration{1200 * time.Millisecond, 2400 * time.Millisecond, 4800 * time.Millisecond,
		9600 * time.Millisecond, 19200 * time.Millisecond, 30 * time.Second, 30 * time.Second, 30 * time.Second}
	eq(t, "jittered delays", got, want)
}

// stepClock is a Clock frozen in time, for code that only reads Now.
type stepClock struct {
	RealClock // for timers
	now       time.Time
}

func (c *stepClock) Now() time.Time { return c.now }

func TestReflectorShortWatchBacksOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := &fakeLW{}
		var mu sync.Mutex
		var times []time.Duration
		start := time.Now()
		lw.setWatch(func(_ context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			mu.Lock()
			defer mu.Unlock()
			times = append(times, time.Since(start))
			w := watch.NewRaceFreeFake()
			w.Stop() // closed at once, no event
			return w, nil
		})
		startReflector(t, lw, ReflectorOptions[*corev1.ConfigMap]{DisableWatchList: true})
		time.Sleep(2 * time.Second)
		synctest.Wait()
		mu.Lock()
		defer mu.Unlock()
		eq(t, "watch times", times, []time.Duration{0, 800 * time.Millisecond})
	})
}

func TestReflectorErrorEventBacksOffAndResumes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := &fakeLW{}
		startReflector(t, lw, ReflectorOptions[*corev1.ConfigMap]{DisableWatchList: true})
		lw.takeCalls()
		w := lw.lastWatch()
		w.Add(cm("a", "x", "7"))
		w.Error(&metav1.Status{Status: metav1.StatusFailure, Code: 500, Reason: metav1.StatusReasonInternalError})
		synctest.Wait()
		if got := verbs(lw.takeCalls()); len(got) != 0 {
			t.Fatalf("retried before backing off: %v", got)
		}
		time.Sleep(800 * time.Millisecond)
		synctest.Wait()
		calls := lw.takeCalls()
		eq(t, "requests", verbs(calls), []string{"watch"})
		if calls[0].opts.ResourceVersion != "7" {
			t.Errorf("resumed from %q, want 7", calls[0].opts.ResourceVersion)
		}
	})
}

func TestReflectorSelectors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := &fakeLW{}
		startReflector(t, lw, ReflectorOptions[*corev1.ConfigMap]{LabelSelector: "app=x", FieldSelector: "metadata.name=y"})
		lw.lastWatch().Action(watch.Bookmark, bookmark("1", true))
		lw.lastWatch().Stop()
		synctest.Wait()
		for _, c := range lw.takeCalls() {
			if c.opts.LabelSelector != "app=x" || c.opts.FieldSelector != "metadata.name=y" {
				t.Errorf("%s without selectors: %+v", c.verb, c.opts)
			}
		}
	})
}

// A clean shutdown logs nothing above Debug, in every phase.
func TestReflectorQuietShutdown(t *testing.T) {
	block := func(ctx context.Context, _ metav1.ListOptions) (runtime.Object, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	blockWatch := func(ctx context.Context, _ metav1.ListOptions) (watch.Interface, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	for _, tt := range []struct {
		name  string
		setup func(lw *fakeLW)
		opts  ReflectorOptions[*corev1.ConfigMap]
	}{
		{"streaming", func(lw *fakeLW) {}, ReflectorOptions[*corev1.ConfigMap]{}},
		{"opening a stream", func(lw *fakeLW) { lw.setWatch(blockWatch) }, ReflectorOptions[*corev1.ConfigMap]{}},
		{"listing", func(lw *fakeLW) { lw.setList(block) }, ReflectorOptions[*corev1.ConfigMap]{DisableWatchList: true}},
		{"watching", func(lw *fakeLW) {}, ReflectorOptions[*corev1.ConfigMap]{DisableWatchList: true}},
		{"backing off", func(lw *fakeLW) {
			lw.setList(func(context.Context, metav1.ListOptions) (runtime.Object, error) { return nil, errConnRefused() })
		}, ReflectorOptions[*corev1.ConfigMap]{DisableWatchList: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				lw := &fakeLW{}
				tt.setup(lw)
				var logs logBuffer
				opts := tt.opts
				opts.Logger = logs.logger()
				r := NewReflector(lw, func(Delta[*corev1.ConfigMap]) {}, opts)
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan error, 1)
				go func() { done <- r.Run(ctx) }()
				synctest.Wait()
				before := logs.String()
				cancel()
				if err := <-done; err != nil {
					t.Errorf("Run: %v", err)
				}
				after := strings.TrimPrefix(logs.String(), before)
				if strings.Contains(after, "level=WARN") || strings.Contains(after, "level=ERROR") || strings.Contains(after, "level=INFO") {
					t.Errorf("shutdown logged:\n%s", after)
				}
			})
		})
	}
}
