package cache

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// The relist memory test keeps n ConfigMaps of about 1 KiB each, then
// relists them all with new versions (so every object is replaced) and
// samples the live heap, after a GC, at every page boundary. Applying the
// list into the store as it arrives keeps the peak near one store plus
// one page; a relist that built the new set beside the old one and
// swapped (as client-go's Replace and kube-rs's atomic swap do) would
// hold two stores.
const memObjects = 10000

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func heavyCM(i int, rv string) *corev1.ConfigMap {
	c := cm("ns", fmt.Sprintf("cm-%05d", i), rv)
	c.Data = map[string]string{"payload": strings.Repeat(string(rune('a'+i%26)), 1024) + rv}
	return c
}

// memLW serves memObjects fresh objects per listing, at version gen, and
// samples the heap at each page boundary of a listing with sampling on.
type memLW struct {
	mu       sync.Mutex
	gen      int
	sampling bool
	peak     uint64
	streamed chan struct{}
	expire   chan struct{}
	watches  []*watch.RaceFreeFakeWatcher
}

func (m *memLW) sample() {
	m.mu.Lock()
	on := m.sampling
	m.mu.Unlock()
	if !on {
		return
	}
	h := liveHeap()
	m.mu.Lock()
	m.peak = max(m.peak, h)
	m.mu.Unlock()
}

func (m *memLW) List(_ context.Context, opts metav1.ListOptions) (k8sruntime.Object, error) {
	m.sample()
	start := 0
	if opts.Continue != "" {
		fmt.Sscan(opts.Continue, &start)
	}
	m.mu.Lock()
	rv := fmt.Sprint(m.gen)
	m.mu.Unlock()
	end := min(start+int(opts.Limit), memObjects)
	l := &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: rv}}
	l.Items = make([]corev1.ConfigMap, 0, end-start)
	for i := start; i < end; i++ {
		l.Items = append(l.Items, *heavyCM(i, rv))
	}
	if end < memObjects {
		l.Continue = fmt.Sprint(end)
	}
	return l, nil
}

func (m *memLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if opts.SendInitialEvents == nil {
		w := watch.NewRaceFreeFake()
		m.mu.Lock()
		m.watches = append(m.watches, w)
		m.mu.Unlock()
		return w, nil
	}
	// A WatchList: stream the objects through an unbuffered channel,
	// sampling every 500.
	m.mu.Lock()
	rv := fmt.Sprint(m.gen)
	m.mu.Unlock()
	w := &chanWatch{ch: make(chan watch.Event), stop: make(chan struct{})}
	go func() {
		defer close(w.ch)
		for i := range memObjects {
			if i%500 == 0 {
				m.sample()
			}
			select {
			case w.ch <- watch.Event{Type: watch.Added, Object: heavyCM(i, rv)}:
			case <-w.stop:
				return
			}
		}
		m.sample()
		select {
		case w.ch <- watch.Event{Type: watch.Bookmark, Object: bookmark(rv, true)}:
		case <-w.stop:
			return
		}
		m.streamed <- struct{}{}
		// The stream goes on as the watch, until the test expires it.
		select {
		case <-m.expire:
			select {
			case w.ch <- watch.Event{Type: watch.Error, Object: expiredStatus()}:
			case <-w.stop:
			}
		case <-w.stop:
		}
		<-w.stop
	}()
	return w, nil
}

// chanWatch is a watch.Interface over a channel the test feeds.
type chanWatch struct {
	ch   chan watch.Event
	stop chan struct{}
	once sync.Once
}

func (w *chanWatch) ResultChan() <-chan watch.Event { return w.ch }
func (w *chanWatch) Stop()                          { w.once.Do(func() { close(w.stop) }) }

func TestRelistMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates tens of MB")
	}
	for _, stream := range []bool{false, true} {
		name := "paged"
		if stream {
			name = "watchlist"
		}
		t.Run(name, func(t *testing.T) {
			lw := &memLW{gen: 1, streamed: make(chan struct{}, 1), expire: make(chan struct{}, 1)}
			opts := quietOpts()
			opts.DisableWatchList = !stream
			inf := NewInformer[CM](lw, opts)
			empty := liveHeap()
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- inf.Run(ctx) }()
			defer func() { cancel(); <-done }()
			waitFor(t, func() bool { return inf.HasSynced() })

			stored := liveHeap()
			lw.mu.Lock()
			lw.gen, lw.sampling = 2, true
			lw.mu.Unlock()
			relist(t, lw, stream)
			waitFor(t, func() bool {
				o, ok := inf.Indexer().Get("ns/cm-09999")
				return ok && o.ResourceVersion == "2"
			})
			lw.mu.Lock()
			peak := lw.peak
			lw.mu.Unlock()
			after := liveHeap()
			if inf.Indexer().List() == nil {
				t.Fatal("store emptied")
			}
			storeBytes := float64(stored - empty)
			growth := float64(peak-empty) / storeBytes
			t.Logf("%d objects: store %.1f MiB; peak during relist %.1f MiB (%.2fx the store); after %.1f MiB",
				memObjects, storeBytes/(1<<20), float64(peak-empty)/(1<<20), growth, float64(after-empty)/(1<<20))
			if growth > 1.25 {
				t.Errorf("relist peak is %.2fx the store, want at most 1.25x", growth)
			}
		})
	}
}

// relist makes the informer's watch expire, which makes it list again.
func relist(t *testing.T, lw *memLW, stream bool) {
	t.Helper()
	if stream {
		<-lw.streamed // the stream is now the watch
		lw.expire <- struct{}{}
		return
	}
	var w *watch.RaceFreeFakeWatcher
	waitFor(t, func() bool {
		lw.mu.Lock()
		defer lw.mu.Unlock()
		if len(lw.watches) > 0 {
			w = lw.watches[len(lw.watches)-1]
		}
		return w != nil
	})
	w.Error(expiredStatus())
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// The same measurement of a relist that builds the new set beside the old
// and swaps at the end, as client-go's Replace does: it shows the
// doubling the Store avoids, and that the measurement would see it.
func TestRelistMemorySwapForComparison(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates tens of MB")
	}
	lw := &memLW{gen: 1}
	var mu sync.Mutex
	cur := map[string]CM{}
	var next map[string]CM
	synced := false
	sink := func(d Delta[CM]) {
		mu.Lock()
		defer mu.Unlock()
		switch d.Op {
		case OpListStart:
			next = map[string]CM{}
		case OpListItem:
			next[Key(d.Object)] = d.Object
		case OpListEnd:
			cur, next, synced = next, nil, true
		}
	}
	r := NewReflector(lw, sink, ReflectorOptions[CM]{DisableWatchList: true, Logger: discardLogger()})
	empty := liveHeap()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	defer func() { cancel(); <-done }()
	isSynced := func() bool { mu.Lock(); defer mu.Unlock(); return synced && len(cur) == memObjects }
	waitFor(t, isSynced)
	stored := liveHeap()
	lw.mu.Lock()
	lw.gen, lw.sampling = 2, true
	lw.mu.Unlock()
	mu.Lock()
	synced = false
	mu.Unlock()
	relist(t, lw, false)
	waitFor(t, isSynced)
	lw.mu.Lock()
	peak := lw.peak
	lw.mu.Unlock()
	storeBytes := float64(stored - empty)
	t.Logf("swap: store %.1f MiB; peak during relist %.1f MiB (%.2fx the store)",
		storeBytes/(1<<20), float64(peak-empty)/(1<<20), float64(peak-empty)/storeBytes)
	runtime.KeepAlive(cur)
}
