package watchcache_test

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// write is one storage write the tests made, for computing what watchers
// must see.
type write struct {
	ev
	ns string
}

func TestWatchAfterReplaysThenLive(t *testing.T) {
	var base int64
	var hist []write
	record := func(e *env, typ storage.EventType, ns, name string, rev int64) {
		hist = append(hist, write{ev{typ, key(configMaps, ns, name), rev}, ns})
	}
	e := newEnv(t, watchcache.DefaultLimits, nil)
	base = e.store.Revision()
	// The log: five changes across two namespaces.
	for _, w := range []struct {
		ns, name string
		del      bool
	}{{"a", "x", false}, {"b", "y", false}, {"a", "x", false}, {"b", "y", true}, {"a", "z", false}} {
		if w.del {
			record(e, storage.Deleted, w.ns, w.name, e.del(w.ns, w.name))
			continue
		}
		rev, typ := e.put(w.ns, w.name, "x")
		record(e, typ, w.ns, w.name, rev)
	}
	e.sync(hist[len(hist)-1].Rev)
	logged := len(hist)

	tests := []struct {
		name  string
		after int64
		ns    string
	}{
		{name: "from the log start", after: base},
		{name: "from the middle", after: base + 2},
		{name: "from the latest", after: base + int64(logged)},
		{name: "namespace a", after: base, ns: "a"},
		{name: "namespace b from the middle", after: base + 1, ns: "b"},
		{name: "namespace without events", after: base, ns: "c"},
	}
	type opened struct {
		w      *watchcache.Watcher
		replay []ev
	}
	watchers := make([]opened, len(tests))
	for i, tt := range tests {
		w, err := e.cache.Watch(watchcache.WatchOptions{After: tt.after, Namespace: tt.ns})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		defer w.Stop()
		if w.Initial != nil {
			t.Errorf("%s: Initial = %v on a watch from a revision", tt.name, names(w.Initial))
		}
		watchers[i] = opened{w, evs(w.Replay)}
	}
	// Live changes after the watchers registered.
	for _, w := range []struct{ ns, name string }{{"a", "z"}, {"b", "w"}, {"a", "x"}} {
		rev, typ := e.put(w.ns, w.name, "y")
		record(e, typ, w.ns, w.name, rev)
	}
	last := hist[len(hist)-1].Rev
	e.sync(last)

	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var wantReplay, wantLive []ev
			for j, h := range hist {
				if h.Rev <= tt.after || (tt.ns != "" && h.ns != tt.ns) {
					continue
				}
				if j < logged {
					wantReplay = append(wantReplay, h.ev)
				} else {
					wantLive = append(wantLive, h.ev)
				}
			}
			o := watchers[i]
			if !slices.Equal(o.replay, orEmpty(wantReplay)) {
				t.Errorf("Replay = %v, want %v", o.replay, wantReplay)
			}
			live := receive(t, o.w, len(wantLive))
			if !slices.Equal(live, orEmpty(wantLive)) {
				t.Errorf("live = %v, want %v", live, wantLive)
			}
			// Everything up to last has been delivered: nothing more waits.
			if n := len(o.w.C()); n != 0 {
				t.Errorf("%d unexpected events buffered", n)
			}
		})
	}
}

func orEmpty(s []ev) []ev {
	if s == nil {
		return []ev{}
	}
	return s
}

// TestWatchConsistentUnderConcurrentWrites opens Initial and After
// watches while writers run. Each must see the state at its start
// revision, then exactly the later changes: no gap, no duplicate, in
// revision order.
func TestWatchConsistentUnderConcurrentWrites(t *testing.T) {
	limits := watchcache.DefaultLimits
	// Readers keep up, but the race detector can stall one for a while;
	// this test is about ordering, not slow watchers.
	limits.WatchBuffer = 1 << 12
	e := newEnv(t, limits, func(e *env) {
		e.put("a", "seed", "x")
		e.put("b", "seed", "x")
	})
	seedRev := e.store.Revision()

	var mu sync.Mutex
	var hist []write
	const writers, writesEach = 4, 150
	var wwg sync.WaitGroup
	writing := make(chan struct{})
	for w := range writers {
		wwg.Go(func() {
			live := map[string]bool{}
			for i := range writesEach {
				ns := []string{"a", "b"}[i%2]
				name := fmt.Sprintf("w%d-%d", w, i%6)
				k := key(configMaps, ns, name)
				var rev int64
				var typ storage.EventType
				var err error
				switch {
				case live[k] && i%5 == 4:
					_, rev, err = e.mem.Delete(e.ctx, k, 0)
					typ, live[k] = storage.Deleted, false
				case live[k]:
					rev, err = e.mem.Update(e.ctx, k, value(ns, name, "x", i), 0)
					typ = storage.Modified
				default:
					rev, err = e.mem.Create(e.ctx, k, value(ns, name, "x", i))
					typ, live[k] = storage.Added, true
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				hist = append(hist, write{ev{typ, k, rev}, ns})
				mu.Unlock()
				if i%2 == 0 {
					time.Sleep(time.Millisecond) // let watches start in between
				}
			}
		})
	}

	type result struct {
		opts    watchcache.WatchOptions
		w       *watchcache.Watcher
		initial []*watchcache.Object
		got     []ev
	}
	var results []*result
	var rwg sync.WaitGroup
	open := func(opts watchcache.WatchOptions) {
		w, err := e.cache.Watch(opts)
		if err != nil {
			t.Errorf("Watch(%+v): %v", opts, err)
			return
		}
		r := &result{opts: opts, w: w, initial: w.Initial, got: evs(w.Replay)}
		results = append(results, r)
		rwg.Go(func() {
			for e := range w.C() {
				r.got = append(r.got, evOf(e))
			}
		})
	}
	go func() { wwg.Wait(); close(writing) }()
	// Open watchers while the writers run.
	for i := 0; i < 200; i++ {
		select {
		case <-writing:
			i = 200
			continue
		default:
		}
		switch i % 4 {
		case 0:
			open(watchcache.WatchOptions{Initial: true})
		case 1:
			open(watchcache.WatchOptions{Initial: true, Namespace: "a"})
		case 2:
			open(watchcache.WatchOptions{After: max(seedRev, e.cache.Revision()-3)})
		case 3:
			open(watchcache.WatchOptions{After: e.cache.Revision(), Namespace: "b"})
		}
		time.Sleep(time.Millisecond)
	}
	<-writing
	final, err := e.mem.Revision(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	e.sync(final)
	// Every event up to final is in each watcher's channel; Stop closes it
	// after what is buffered.
	for _, r := range results {
		r.w.Stop()
	}
	rwg.Wait()

	slices.SortFunc(hist, func(a, b write) int { return int(a.Rev - b.Rev) })
	if len(hist) != writers*writesEach {
		t.Fatalf("%d writes recorded", len(hist))
	}
	seeded := map[string]write{
		key(configMaps, "a", "seed"): {ev{storage.Added, key(configMaps, "a", "seed"), seedRev - 1}, "a"},
		key(configMaps, "b", "seed"): {ev{storage.Added, key(configMaps, "b", "seed"), seedRev}, "b"},
	}
	stateAt := func(rev int64, ns string) []string {
		state := maps.Clone(seeded)
		for _, h := range hist {
			if h.Rev > rev {
				break
			}
			if h.Type == storage.Deleted {
				delete(state, h.Key)
			} else {
				state[h.Key] = h
			}
		}
		var out []string
		for k, h := range state {
			if ns == "" || h.ns == ns {
				out = append(out, fmt.Sprintf("%s@%d", k, h.Rev))
			}
		}
		slices.Sort(out)
		return out
	}
	var initials, afters int
	for i, r := range results {
		if err := r.w.Err(); err != nil {
			t.Errorf("watcher %d ended with %v", i, err)
		}
		from := r.opts.After
		if r.opts.Initial {
			from = r.w.InitialRevision
			var got []string
			for _, o := range r.initial {
				got = append(got, fmt.Sprintf("%s@%d", o.Key, o.Revision))
			}
			if want := stateAt(from, r.opts.Namespace); !slices.Equal(got, want) {
				t.Errorf("watcher %d (%+v): Initial at %d =\n%v\nwant\n%v", i, r.opts, from, got, want)
			}
			if from > seedRev && from < final {
				initials++
			}
		} else if from > seedRev && from < final {
			afters++
		}
		var want []ev
		for _, h := range hist {
			if h.Rev > from && (r.opts.Namespace == "" || h.ns == r.opts.Namespace) {
				want = append(want, h.ev)
			}
		}
		if !slices.Equal(r.got, want) {
			t.Errorf("watcher %d (%+v) from %d: got %d events, want %d\n%s", i, r.opts, from, len(r.got), len(want), firstDiff(r.got, want))
		}
	}
	// The test means something only if watches started mid-stream.
	t.Logf("%d Initial and %d After watches started while writes ran (revisions %d..%d)", initials, afters, seedRev, final)
	if initials == 0 && afters == 0 {
		t.Log("no watch started while writers ran; the machine was too slow for this test to mean much")
	}
}

func firstDiff(got, want []ev) string {
	for i := range max(len(got), len(want)) {
		var g, w string
		if i < len(got) {
			g = got[i].String()
		}
		if i < len(want) {
			w = want[i].String()
		}
		if g != w {
			return fmt.Sprintf("first difference at %d: got %q, want %q", i, g, w)
		}
	}
	return ""
}

func TestSlowWatcherEnded(t *testing.T) {
	const buffer = 4
	limits := watchcache.DefaultLimits
	limits.WatchBuffer = buffer
	e := newEnv(t, limits, nil)
	slow, err := e.cache.Watch(watchcache.WatchOptions{After: e.store.Revision()})
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Stop()
	fast, err := e.cache.Watch(watchcache.WatchOptions{Initial: true})
	if err != nil {
		t.Fatal(err)
	}
	defer fast.Stop()
	// A watcher in another namespace gets none of these events, so it
	// never falls behind however little it reads.
	other, err := e.cache.Watch(watchcache.WatchOptions{Initial: true, Namespace: "other"})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Stop()

	const writes = 3 * buffer
	var want []ev
	for i := range writes {
		rev, typ := e.put("a", fmt.Sprintf("cm-%d", i%3), "x")
		want = append(want, ev{typ, key(configMaps, "a", fmt.Sprintf("cm-%d", i%3)), rev})
		e.sync(rev)
		// fast reads each event as it comes, so it is never behind.
		if got := receive(t, fast, 1); got[0] != want[i] {
			t.Fatalf("fast watcher event %d = %v, want %v", i, got[0], want[i])
		}
	}

	// slow got the events its buffer held, then its channel closed.
	var got []ev
	for e := range slow.C() {
		got = append(got, evOf(e))
	}
	if !slices.Equal(got, want[:buffer]) {
		t.Errorf("slow watcher got %v, want the first %d events %v", got, buffer, want[:buffer])
	}
	if err := slow.Err(); !errors.Is(err, watchcache.ErrTooSlow) {
		t.Errorf("slow watcher Err = %v, want %v", err, watchcache.ErrTooSlow)
	}
	for name, w := range map[string]*watchcache.Watcher{"fast": fast, "other": other} {
		if err := w.Err(); err != nil {
			t.Errorf("%s watcher Err = %v, want nil", name, err)
		}
	}
	if n := e.cache.Stats().Watchers; n != 2 {
		t.Errorf("Stats().Watchers = %d, want 2 after the slow one ended", n)
	}
	// The others go on receiving.
	rev, typ := e.put("other", "cm", "x")
	for name, w := range map[string]*watchcache.Watcher{"fast": fast, "other": other} {
		if got, want := receive(t, w, 1), []ev{{typ, key(configMaps, "other", "cm"), rev}}; !slices.Equal(got, want) {
			t.Errorf("%s watcher after the slow one ended: %v, want %v", name, got, want)
		}
	}
	// Stop on an ended watcher is harmless and keeps its reason.
	slow.Stop()
	if err := slow.Err(); !errors.Is(err, watchcache.ErrTooSlow) {
		t.Errorf("after Stop, Err = %v, want %v", err, watchcache.ErrTooSlow)
	}
}

func TestWatchStop(t *testing.T) {
	e := newEnv(t, watchcache.DefaultLimits, nil)
	w, err := e.cache.Watch(watchcache.WatchOptions{Initial: true})
	if err != nil {
		t.Fatal(err)
	}
	w.Stop()
	w.Stop()
	if _, ok := <-w.C(); ok {
		t.Error("C delivered after Stop")
	}
	if err := w.Err(); err != nil {
		t.Errorf("Err after Stop = %v, want nil", err)
	}
	if n := e.cache.Stats().Watchers; n != 0 {
		t.Errorf("Stats().Watchers = %d after Stop, want 0", n)
	}
	// The cache no longer sends to it: a write after Stop is applied
	// without touching the closed channel.
	rev, _ := e.put("a", "x", "x")
	e.sync(rev)
}

func TestWatchExpired(t *testing.T) {
	const writes = 10
	size := 64 + len(value("a", "cm-0", "x", 0)) // Event.size of each event below
	tests := []struct {
		name   string
		limits watchcache.Limits
		// kept is how many of the writes the log keeps.
		kept int
	}{
		{name: "MaxEvents", limits: watchcache.Limits{MaxEvents: 5, MaxBytes: 1 << 20, WatchBuffer: 16}, kept: 5},
		// The log compacts its dropped head every other write.
		{name: "MaxEvents, compacted often", limits: watchcache.Limits{MaxEvents: 2, MaxBytes: 1 << 20, WatchBuffer: 16}, kept: 2},
		{name: "MaxBytes", limits: watchcache.Limits{MaxEvents: 100, MaxBytes: 3 * size, WatchBuffer: 16}, kept: 3},
		// The byte bound holds however few events it leaves: the log
		// used to keep 100 events past it.
		{name: "MaxBytes under two events", limits: watchcache.Limits{MaxEvents: 100, MaxBytes: 2*size - 1, WatchBuffer: 16}, kept: 1},
		{name: "MaxBytes under one event", limits: watchcache.Limits{MaxEvents: 100, MaxBytes: size - 1, WatchBuffer: 16}, kept: 0},
		{name: "everything kept", limits: watchcache.Limits{MaxEvents: 100, MaxBytes: 1 << 20, WatchBuffer: 16}, kept: writes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tt.limits, nil)
			base := e.store.Revision()
			for i := range writes {
				rev, _ := e.put("a", fmt.Sprintf("cm-%d", i%3), "x")
				e.sync(rev)
			}
			last := base + writes
			oldest := last - int64(tt.kept)
			if got := e.cache.Oldest(); got != oldest {
				t.Errorf("Oldest = %d, want %d", got, oldest)
			}
			if got := e.cache.Stats().LogEvents; got != tt.kept {
				t.Errorf("LogEvents = %d, want %d", got, tt.kept)
			}
			for _, after := range []int64{0, base, oldest - 1, oldest, oldest + 1, last} {
				if after > last {
					continue
				}
				w, err := e.cache.Watch(watchcache.WatchOptions{After: after})
				if after < oldest {
					if !errors.Is(err, watchcache.ErrExpired) {
						t.Errorf("Watch after %d (oldest %d) = %v, want %v", after, oldest, err, watchcache.ErrExpired)
					}
					if w != nil {
						w.Stop()
					}
					continue
				}
				if err != nil {
					t.Errorf("Watch after %d (oldest %d): %v", after, oldest, err)
					continue
				}
				if got, want := len(w.Replay), int(last-after); got != want {
					t.Errorf("Watch after %d: %d events replayed, want %d", after, got, want)
				}
				if len(w.Replay) > 0 && w.Replay[0].Revision != after+1 {
					t.Errorf("Watch after %d: replay starts at %d", after, w.Replay[0].Revision)
				}
				w.Stop()
			}
			// An Initial watch never expires.
			w, err := e.cache.Watch(watchcache.WatchOptions{Initial: true})
			if err != nil {
				t.Fatalf("Initial watch: %v", err)
			}
			w.Stop()
			if w.InitialRevision != last || len(w.Initial) != 3 {
				t.Errorf("Initial watch: %d objects at %d, want 3 at %d", len(w.Initial), w.InitialRevision, last)
			}
		})
	}
}

// TestDefaultLimitsHoldTheByteBound rewrites one 1 MiB object 24 times
// under the default limits: the log keeps what fits in 16 MiB, not the
// hundred events it used to keep whatever their size, and a watch from
// before them ends as expired (410 to the client).
func TestDefaultLimitsHoldTheByteBound(t *testing.T) {
	e := newEnv(t, watchcache.DefaultLimits, nil)
	base := e.store.Revision()
	big := strings.Repeat("x", 1<<20)
	const writes = 24
	var rev int64
	for i := range writes {
		v := fmt.Appendf(nil, `{"metadata":{"namespace":"a","name":"big"},"data":{"gen":"%03d","big":%q}}`, i, big)
		var err error
		if i == 0 {
			rev, err = e.mem.Create(e.ctx, key(configMaps, "a", "big"), v)
		} else {
			rev, err = e.mem.Update(e.ctx, key(configMaps, "a", "big"), v, 0)
		}
		if err != nil {
			t.Fatal(err)
		}
		e.sync(rev)
	}
	size := 64 + len(big) + 64 // Event.size, with the JSON around the data
	kept := e.cache.Stats().LogEvents
	if max := watchcache.DefaultLimits.MaxBytes / size; kept > max || kept == 0 {
		t.Fatalf("log keeps %d events of about %d bytes, want 1 to %d (MaxBytes %d)", kept, size, max, watchcache.DefaultLimits.MaxBytes)
	}
	if got, want := e.cache.Oldest(), rev-int64(kept); got != want {
		t.Fatalf("Oldest = %d, want %d", got, want)
	}
	if _, err := e.cache.Watch(watchcache.WatchOptions{After: base}); !errors.Is(err, watchcache.ErrExpired) {
		t.Fatalf("Watch after %d, before the log = %v, want %v", base, err, watchcache.ErrExpired)
	}
	w, err := e.cache.Watch(watchcache.WatchOptions{After: e.cache.Oldest()})
	if err != nil {
		t.Fatalf("Watch from the oldest logged revision: %v", err)
	}
	defer w.Stop()
	if len(w.Replay) != kept {
		t.Fatalf("Watch from the oldest logged revision replays %d events, want %d", len(w.Replay), kept)
	}
}

func TestRemove(t *testing.T) {
	e := newEnv(t, watchcache.DefaultLimits, nil)
	sc, err := e.store.Add(e.ctx, secrets, decode)
	if err != nil {
		t.Fatal(err)
	}
	var cmWatchers []*watchcache.Watcher
	for _, opts := range []watchcache.WatchOptions{{Initial: true}, {After: e.store.Revision()}, {Initial: true, Namespace: "a"}} {
		w, err := e.cache.Watch(opts)
		if err != nil {
			t.Fatal(err)
		}
		cmWatchers = append(cmWatchers, w)
	}
	sw, err := sc.Watch(watchcache.WatchOptions{After: e.store.Revision()})
	if err != nil {
		t.Fatal(err)
	}
	defer sw.Stop()
	rev, _ := e.put("a", "before", "x")
	e.sync(rev)

	e.store.Remove(configMaps)

	for i, w := range cmWatchers {
		// Buffered events stay readable, then C closes.
		timeout := time.After(waitTimeout)
	drain:
		for {
			select {
			case _, ok := <-w.C():
				if !ok {
					break drain
				}
			case <-timeout:
				t.Fatalf("watcher %d not closed by Remove", i)
			}
		}
		if err := w.Err(); !errors.Is(err, watchcache.ErrRemoved) {
			t.Errorf("watcher %d Err = %v, want %v", i, err, watchcache.ErrRemoved)
		}
		w.Stop() // harmless after the end
	}
	if _, err := e.cache.Watch(watchcache.WatchOptions{Initial: true}); !errors.Is(err, watchcache.ErrRemoved) {
		t.Errorf("Watch on a removed cache = %v, want %v", err, watchcache.ErrRemoved)
	}
	if _, ok := e.store.Cache(configMaps); ok {
		t.Error("Store.Cache still returns the removed resource")
	}
	// Writes to the removed resource are ignored; others still flow.
	e.put("a", "after", "x")
	srev, typ := e.putIn(secrets, "a", "s", "x")
	if got, want := receive(t, sw, 1), []ev{{typ, key(secrets, "a", "s"), srev}}; !slices.Equal(got, want) {
		t.Errorf("secrets watcher = %v, want %v", got, want)
	}
	if err := sw.Err(); err != nil {
		t.Errorf("secrets watcher Err = %v", err)
	}
	e.store.Remove(configMaps) // removing twice is a no-op

	// Adding it back lists the current state, including writes made while
	// it was not cached.
	c, err := e.store.Add(e.ctx, configMaps, decode)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(c.List(watchcache.ListOptions{}).Items), []string{"a/after", "a/before"}; !slices.Equal(got, want) {
		t.Errorf("re-added cache lists %v, want %v", got, want)
	}
}
