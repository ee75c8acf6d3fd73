package watchcache_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
	"github.com/setpoint-dev/setpoint/pkg/storage"
)

func TestInitialListing(t *testing.T) {
	tests := []struct {
		name string
		seed func(e *env)
		want []string
	}{
		{name: "empty store", seed: nil, want: []string{}},
		{
			name: "objects written before start",
			seed: func(e *env) {
				e.put("b", "two", "x")
				e.put("a", "one", "x")
				e.put("a", "zero", "y")
			},
			want: []string{"a/one", "a/zero", "b/two"},
		},
		{
			name: "updates and deletes before start",
			seed: func(e *env) {
				e.put("a", "gone", "x")
				e.put("a", "kept", "x")
				e.put("a", "kept", "y")
				e.del("a", "gone")
				// Another resource is not listed into the ConfigMaps cache.
				e.putIn(secrets, "a", "secret", "x")
			},
			want: []string{"a/kept"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, watchcache.DefaultLimits, tt.seed)
			storeRev, err := e.mem.Revision(e.ctx)
			if err != nil {
				t.Fatal(err)
			}
			res := e.cache.List(watchcache.ListOptions{})
			if got := names(res.Items); !slices.Equal(got, tt.want) {
				t.Errorf("List = %v, want %v", got, tt.want)
			}
			if res.Revision != storeRev {
				t.Errorf("List revision = %d, want storage revision %d", res.Revision, storeRev)
			}
			if got := e.store.Revision(); got != storeRev {
				t.Errorf("Store.Revision = %d, want %d", got, storeRev)
			}
			// Each object carries the revision that last wrote it.
			for _, o := range res.Items {
				kv, err := e.mem.Get(e.ctx, o.Key)
				if err != nil {
					t.Fatal(err)
				}
				if o.Revision != kv.Revision || string(o.JSON) != string(kv.Value) {
					t.Errorf("%s: cached rev %d %s, stored rev %d %s", o.Key, o.Revision, o.JSON, kv.Revision, kv.Value)
				}
			}
			if st := e.cache.Stats(); st.Objects != int64(len(tt.want)) || st.LogEvents != 0 {
				t.Errorf("Stats = %+v, want %d objects and an empty log", st, len(tt.want))
			}
		})
	}
}

func TestAddAfterStart(t *testing.T) {
	e := newEnv(t, watchcache.DefaultLimits, nil)
	e.putIn(secrets, "a", "s1", "x")
	rev, _ := e.putIn(secrets, "b", "s2", "x")
	e.sync(rev)
	c, err := e.store.Add(e.ctx, secrets, decode)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := e.store.Add(e.ctx, secrets, decode); again != c {
		t.Error("adding a cached resource again returned a new cache")
	}
	res := c.List(watchcache.ListOptions{})
	if got, want := names(res.Items), []string{"a/s1", "b/s2"}; !slices.Equal(got, want) {
		t.Errorf("List = %v, want %v", got, want)
	}
	if res.Revision != rev {
		t.Errorf("List revision = %d, want %d", res.Revision, rev)
	}
	w, err := c.Watch(watchcache.WatchOptions{After: rev})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	rev2, _ := e.putIn(secrets, "a", "s3", "x")
	got := receive(t, w, 1)
	if want := []ev{{Type: storage.Added, Key: key(secrets, "a", "s3"), Rev: rev2}}; !slices.Equal(got, want) {
		t.Errorf("events = %v, want %v", got, want)
	}
}

func TestList(t *testing.T) {
	e := newEnv(t, watchcache.DefaultLimits, func(e *env) {
		// Namespace "ab" shares a prefix with "a" but is not in it.
		e.put("b", "b2", "x")
		e.put("a", "a3", "x")
		e.put("ab", "ab1", "x")
		e.put("a", "a1", "x")
		e.put("b", "b1", "y")
		e.put("a", "a2", "y")
	})
	storeRev := e.store.Revision()
	teamX := func(o *watchcache.Object) bool { return o.Labels["team"] == "x" }
	after := func(ns, name string) string { return key(configMaps, ns, name) }
	tests := []struct {
		name          string
		opts          watchcache.ListOptions
		want          []string
		wantMore      bool
		wantRemaining int64
	}{
		{name: "all in key order", want: []string{"a/a1", "a/a2", "a/a3", "ab/ab1", "b/b1", "b/b2"}},
		{name: "namespace", opts: watchcache.ListOptions{Namespace: "a"}, want: []string{"a/a1", "a/a2", "a/a3"}},
		{name: "namespace sharing a prefix", opts: watchcache.ListOptions{Namespace: "ab"}, want: []string{"ab/ab1"}},
		{name: "empty namespace", opts: watchcache.ListOptions{Namespace: "c"}, want: []string{}},
		{name: "match", opts: watchcache.ListOptions{Match: teamX}, want: []string{"a/a1", "a/a3", "ab/ab1", "b/b2"}},
		{name: "namespace and match", opts: watchcache.ListOptions{Namespace: "a", Match: teamX}, want: []string{"a/a1", "a/a3"}},
		{name: "limit", opts: watchcache.ListOptions{Limit: 2}, want: []string{"a/a1", "a/a2"}, wantMore: true, wantRemaining: 4},
		{name: "limit in namespace", opts: watchcache.ListOptions{Namespace: "a", Limit: 2}, want: []string{"a/a1", "a/a2"}, wantMore: true, wantRemaining: 1},
		{name: "limit equal to the count", opts: watchcache.ListOptions{Namespace: "a", Limit: 3}, want: []string{"a/a1", "a/a2", "a/a3"}},
		{name: "limit above the count", opts: watchcache.ListOptions{Limit: 100}, want: []string{"a/a1", "a/a2", "a/a3", "ab/ab1", "b/b1", "b/b2"}},
		{name: "after", opts: watchcache.ListOptions{After: after("a", "a2")}, want: []string{"a/a3", "ab/ab1", "b/b1", "b/b2"}},
		{name: "after with limit", opts: watchcache.ListOptions{After: after("a", "a2"), Limit: 2}, want: []string{"a/a3", "ab/ab1"}, wantMore: true, wantRemaining: 2},
		{name: "after in namespace", opts: watchcache.ListOptions{Namespace: "a", After: after("a", "a2"), Limit: 5}, want: []string{"a/a3"}},
		{name: "after the last key", opts: watchcache.ListOptions{After: after("b", "b2")}, want: []string{}},
		{name: "after a key before the namespace", opts: watchcache.ListOptions{Namespace: "b", After: after("a", "a3")}, want: []string{"b/b1", "b/b2"}},
		{name: "after a missing key", opts: watchcache.ListOptions{After: after("a", "a25")}, want: []string{"a/a3", "ab/ab1", "b/b1", "b/b2"}},
		// With a filter the rest is unknown: More, but no count.
		{name: "limit with match", opts: watchcache.ListOptions{Match: teamX, Limit: 1}, want: []string{"a/a1"}, wantMore: true},
		{name: "limit with match, last match fills the page", opts: watchcache.ListOptions{Namespace: "a", Match: teamX, Limit: 2}, want: []string{"a/a1", "a/a3"}},
		{name: "limit with match and after", opts: watchcache.ListOptions{Match: teamX, After: after("a", "a1"), Limit: 2}, want: []string{"a/a3", "ab/ab1"}, wantMore: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := e.cache.List(tt.opts)
			if got := names(res.Items); !slices.Equal(got, tt.want) {
				t.Errorf("Items = %v, want %v", got, tt.want)
			}
			if res.More != tt.wantMore || res.Remaining != tt.wantRemaining {
				t.Errorf("More, Remaining = %v, %d, want %v, %d", res.More, res.Remaining, tt.wantMore, tt.wantRemaining)
			}
			if res.Revision != storeRev {
				t.Errorf("Revision = %d, want %d", res.Revision, storeRev)
			}
		})
	}

	// Pages chained with After cover the listing exactly once.
	t.Run("pages", func(t *testing.T) {
		var got []string
		opts := watchcache.ListOptions{Limit: 4}
		for range 10 {
			res := e.cache.List(opts)
			got = append(got, names(res.Items)...)
			if !res.More {
				break
			}
			opts.After = res.Items[len(res.Items)-1].Key
		}
		if want := []string{"a/a1", "a/a2", "a/a3", "ab/ab1", "b/b1", "b/b2"}; !slices.Equal(got, want) {
			t.Errorf("pages = %v, want %v", got, want)
		}
	})

	// The key order follows adds and deletes after the first listing.
	t.Run("after changes", func(t *testing.T) {
		for _, step := range []struct {
			change func() int64
			want   []string
		}{
			{func() int64 { r, _ := e.put("a", "a0", "x"); return r }, []string{"a/a0", "a/a1", "a/a2", "a/a3", "ab/ab1", "b/b1", "b/b2"}},
			{func() int64 { r, _ := e.put("a", "a1", "y"); return r }, []string{"a/a0", "a/a1", "a/a2", "a/a3", "ab/ab1", "b/b1", "b/b2"}},
			{func() int64 { return e.del("ab", "ab1") }, []string{"a/a0", "a/a1", "a/a2", "a/a3", "b/b1", "b/b2"}},
			{func() int64 { r, _ := e.put("c", "c1", "x"); return r }, []string{"a/a0", "a/a1", "a/a2", "a/a3", "b/b1", "b/b2", "c/c1"}},
		} {
			e.sync(step.change())
			res := e.cache.List(watchcache.ListOptions{})
			if got := names(res.Items); !slices.Equal(got, step.want) {
				t.Errorf("Items = %v, want %v", got, step.want)
			}
		}
	})
}

// TestListAt: the cache answers for a past revision as things were then,
// and not for a revision it has not reached.
func TestListAt(t *testing.T) {
	e := newEnv(t, watchcache.DefaultLimits, nil)
	first, _ := e.put("a", "a1", "x")
	second, _ := e.put("a", "a2", "x")
	e.sync(second)
	other, _ := e.putIn(secrets, "a", "s", "x")
	e.sync(other)
	tests := []struct {
		name     string
		at       int64
		wantOK   bool
		wantMore bool
	}{
		{"before the last event", first, true, false},
		{"at the last event", second, true, true},
		{"after it, by another resource's write", other, true, true},
		{"not reached yet", other + 1, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, ok := e.cache.ListAt(tt.at, watchcache.ListOptions{Limit: 1})
			if ok != tt.wantOK {
				t.Fatalf("ok = %v, want %v", ok, tt.wantOK)
			}
			if !ok {
				return
			}
			if got := names(res.Items); !slices.Equal(got, []string{"a/a1"}) || res.More != tt.wantMore || res.Revision != tt.at {
				t.Errorf("got %v, More %v, Revision %d; want [a/a1], More %v, Revision %d", got, res.More, res.Revision, tt.wantMore, tt.at)
			}
		})
	}
}

// TestListAtMatchesStorage: after random creates, updates and deletes,
// every page the cache gives for a past revision is the page storage
// gives at that revision, as long as the log reaches back to it.
func TestListAtMatchesStorage(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	e := newEnv(t, watchcache.Limits{MaxEvents: 200, MaxBytes: 1 << 20, WatchBuffer: 1024}, nil)
	var revs []int64
	for range 300 {
		name := fmt.Sprintf("cm%02d", rng.IntN(40))
		ns := []string{"a", "b"}[rng.IntN(2)]
		var rev int64
		if rng.IntN(4) == 0 {
			if rev = e.delIfPresent(ns, name); rev == 0 {
				continue
			}
		} else {
			rev, _ = e.put(ns, name, []string{"x", "y"}[rng.IntN(2)])
		}
		revs = append(revs, rev)
	}
	e.sync(revs[len(revs)-1])
	checked := 0
	for _, at := range revs {
		for _, ns := range []string{"", "a"} {
			for _, limit := range []int{0, 3} {
				prefix := registry.PrefixFor(configMaps)
				if ns != "" {
					prefix += ns + "/"
				}
				st, err := e.mem.List(e.ctx, prefix, storage.ListOptions{Revision: at})
				if err != nil {
					t.Fatal(err)
				}
				var want []string
				for _, kv := range st.Items {
					want = append(want, fmt.Sprintf("%s@%d", kv.Key, kv.Revision))
				}
				var got []string
				opts := watchcache.ListOptions{Namespace: ns, Limit: limit}
				page, ok := e.cache.ListAt(at, opts)
				if !ok {
					continue // the log no longer reaches back
				}
				for {
					for _, o := range page.Items {
						got = append(got, fmt.Sprintf("%s@%d", o.Key, o.Revision))
					}
					if !page.More {
						break
					}
					if rest := int64(len(want) - len(got)); page.Remaining != rest {
						t.Fatalf("at %d in %q: Remaining %d, want %d", at, ns, page.Remaining, rest)
					}
					opts.After = page.Items[len(page.Items)-1].Key
					if page, ok = e.cache.ListAt(at, opts); !ok {
						t.Fatalf("at %d: a later page is refused", at)
					}
				}
				if !slices.Equal(got, want) {
					t.Fatalf("at %d in %q, limit %d:\n got %v\nwant %v", at, ns, limit, got, want)
				}
				checked++
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d listings checked", checked)
	}
}

// TestRevisionFollowsOtherResources: writes to other resources advance
// the revision a cache's answers are true at, since no change of its own
// lies between.
func TestRevisionFollowsOtherResources(t *testing.T) {
	e := newEnv(t, watchcache.DefaultLimits, nil)
	cmRev, _ := e.put("a", "cm", "x")
	e.sync(cmRev)
	rev, _ := e.putIn(secrets, "a", "s", "x")
	e.sync(rev)
	if got := e.cache.List(watchcache.ListOptions{}).Revision; got != rev {
		t.Errorf("List revision = %d, want %d", got, rev)
	}
	if got := e.cache.Revision(); got != rev {
		t.Errorf("Revision = %d, want %d", got, rev)
	}
	if o, at := e.cache.Get(key(configMaps, "a", "cm")); o == nil || o.Revision != cmRev || at != rev {
		t.Errorf("Get = %v at %d, want the object of rev %d at %d", o, at, cmRev, rev)
	}
	w, err := e.cache.Watch(watchcache.WatchOptions{Initial: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if w.InitialRevision != rev {
		t.Errorf("InitialRevision = %d, want %d", w.InitialRevision, rev)
	}
	// A watch from the other resource's revision is not too old and
	// replays nothing.
	w2, err := e.cache.Watch(watchcache.WatchOptions{After: rev})
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Stop()
	if len(w2.Replay) != 0 {
		t.Errorf("Replay = %v, want none", evs(w2.Replay))
	}
}

// TestListConcurrentWithWrites lists while objects are added and
// deleted: every listing is sorted and, with the store quiet, complete.
func TestListConcurrentWithWrites(t *testing.T) {
	e := newEnv(t, watchcache.DefaultLimits, nil)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				res := e.cache.List(watchcache.ListOptions{Namespace: "a"})
				if !slices.IsSortedFunc(res.Items, func(a, b *watchcache.Object) int { return strings.Compare(a.Key, b.Key) }) {
					t.Error("listing out of key order")
					return
				}
			}
		})
	}
	var last int64
	for i := range 300 {
		name := fmt.Sprintf("cm-%03d", i%40)
		if i%3 == 2 {
			if _, err := e.mem.Get(e.ctx, key(configMaps, "a", name)); err == nil {
				last = e.del("a", name)
				continue
			}
		}
		last, _ = e.put("a", name, "x")
	}
	close(stop)
	wg.Wait()
	e.sync(last)
	stored, err := e.mem.List(e.ctx, key(configMaps, "a", ""), storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res := e.cache.List(watchcache.ListOptions{Namespace: "a"})
	if len(res.Items) != len(stored.Items) {
		t.Fatalf("cache lists %d objects, storage %d", len(res.Items), len(stored.Items))
	}
	for i, kv := range stored.Items {
		if o := res.Items[i]; o.Key != kv.Key || o.Revision != kv.Revision {
			t.Errorf("item %d: cache %s@%d, storage %s@%d", i, o.Key, o.Revision, kv.Key, kv.Revision)
		}
	}
}

func TestWaitFresh(t *testing.T) {
	e := newEnv(t, watchcache.DefaultLimits, nil)
	for i := range 100 {
		name := fmt.Sprintf("cm-%d", i%7)
		rev, _ := e.put("a", name, "x")
		// No sync: WaitFresh alone must make the write visible.
		ctx, cancel := context.WithTimeout(e.ctx, waitTimeout)
		err := e.store.WaitFresh(ctx)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		o, at := e.cache.Get(key(configMaps, "a", name))
		if o == nil || o.Revision != rev {
			t.Fatalf("write %d at rev %d: Get after WaitFresh = %v", i, rev, o)
		}
		if at < rev {
			t.Fatalf("Get answered at rev %d, before the write at %d", at, rev)
		}
		if got := e.cache.Revision(); got < rev {
			t.Fatalf("Revision = %d after WaitFresh, want >= %d", got, rev)
		}
		if i%10 == 0 {
			rev := e.del("a", name)
			if err := e.store.WaitFresh(e.ctx); err != nil {
				t.Fatal(err)
			}
			if o, _ := e.cache.Get(key(configMaps, "a", name)); o != nil {
				t.Fatalf("deleted at rev %d, Get after WaitFresh = %s@%d", rev, o.Key, o.Revision)
			}
		}
	}

	t.Run("future revision times out", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(e.ctx, 50*time.Millisecond)
		defer cancel()
		if err := e.store.WaitFor(ctx, e.store.Revision()+1000); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("WaitFor(future) = %v, want %v", err, context.DeadlineExceeded)
		}
	})
}

// TestUndecodable: a stored value the decoder rejects is skipped; the
// cache keeps serving the rest and its revision still advances.
func TestUndecodable(t *testing.T) {
	e := newEnv(t, watchcache.DefaultLimits, func(e *env) {
		if _, err := e.mem.Create(e.ctx, key(configMaps, "a", "bad0"), []byte("not json")); err != nil {
			t.Fatal(err)
		}
		e.put("a", "good0", "x")
	})
	w, err := e.cache.Watch(watchcache.WatchOptions{Initial: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	rev, err := e.mem.Create(e.ctx, key(configMaps, "a", "bad1"), []byte("{"))
	if err != nil {
		t.Fatal(err)
	}
	rev2, _ := e.put("a", "good1", "x")
	e.sync(rev2)
	if got, want := names(e.cache.List(watchcache.ListOptions{}).Items), []string{"a/good0", "a/good1"}; !slices.Equal(got, want) {
		t.Errorf("List = %v, want %v", got, want)
	}
	if got := e.cache.Revision(); got < rev2 {
		t.Errorf("Revision = %d, want >= %d", got, rev2)
	}
	got := receive(t, w, 1)
	if want := []ev{{Type: storage.Added, Key: key(configMaps, "a", "good1"), Rev: rev2}}; !slices.Equal(got, want) {
		t.Errorf("events = %v, want %v (the undecodable write at %d skipped)", got, want, rev)
	}
}

func TestEventMemo(t *testing.T) {
	t.Run("built once under concurrency", func(t *testing.T) {
		var e watchcache.Event
		var calls atomic.Int32
		const n = 64
		start := make(chan struct{})
		results := make([][]byte, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				<-start
				b, err := e.Memo(2, func() ([]byte, error) {
					calls.Add(1)
					time.Sleep(5 * time.Millisecond) // others arrive while it builds
					return []byte("frame"), nil
				})
				if err != nil {
					t.Error(err)
				}
				results[i] = b
			})
		}
		close(start)
		wg.Wait()
		if got := calls.Load(); got != 1 {
			t.Errorf("build ran %d times, want 1", got)
		}
		for i, b := range results {
			if string(b) != "frame" || &b[0] != &results[0][0] {
				t.Fatalf("caller %d got %q, not the shared frame", i, b)
			}
		}
	})

	t.Run("slots are independent", func(t *testing.T) {
		var e watchcache.Event
		for slot := range 8 {
			b, err := e.Memo(slot, func() ([]byte, error) { return []byte{byte(slot)}, nil })
			if err != nil || len(b) != 1 || b[0] != byte(slot) {
				t.Errorf("slot %d = %v, %v", slot, b, err)
			}
		}
		for slot := range 8 {
			b, _ := e.Memo(slot, func() ([]byte, error) { t.Errorf("slot %d rebuilt", slot); return nil, nil })
			if len(b) != 1 || b[0] != byte(slot) {
				t.Errorf("slot %d second call = %v", slot, b)
			}
		}
	})

	t.Run("error is kept", func(t *testing.T) {
		var e watchcache.Event
		boom := errors.New("boom")
		calls := 0
		for range 3 {
			_, err := e.Memo(5, func() ([]byte, error) { calls++; return nil, boom })
			if !errors.Is(err, boom) {
				t.Errorf("Memo = %v, want %v", err, boom)
			}
		}
		if calls != 1 {
			t.Errorf("build ran %d times, want 1", calls)
		}
	})
}
