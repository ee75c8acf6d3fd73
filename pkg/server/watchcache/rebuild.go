package watchcache

import (
	"sync"
	"sync/atomic"
	"weak"
)

// rebuildable holds bytes that can be built again, weakly: readers
// share the last build while any of them still holds it, or while it is
// among the recent builds.
type rebuildable struct {
	p  atomic.Pointer[weak.Pointer[built]]
	mu sync.Mutex // one build at a time
}

// built is the target of a rebuildable's weak pointer: a build's bytes
// or its error.
type built struct {
	b   []byte
	err error
}

// get returns the last build if it is still alive, and builds otherwise;
// concurrent callers wait for one build and share it.
func (r *rebuildable) get(build func() ([]byte, error)) ([]byte, error) {
	if b := r.alive(); b != nil {
		return b.b, b.err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if b := r.alive(); b != nil {
		return b.b, b.err
	}
	b, err := build()
	kept := &built{b: b, err: err}
	w := weak.Make(kept)
	r.p.Store(&w)
	recent.hold(kept)
	return b, err
}

func (r *rebuildable) alive() *built {
	if w := r.p.Load(); w != nil {
		return w.Value()
	}
	return nil
}

// size is what a build costs the recent builds; an error costs as
// little as a short message.
func (b *built) size() int { return len(b.b) + 64 }

// recentBytes bounds the builds recent keeps alive. 32 MiB covers about
// a second of events in BenchmarkPods10k, so watchers that lag each
// other by that much still share a build: at 16 MiB the server spent 5%
// more CPU there rebuilding frames.
const recentBytes = 32 << 20

// recent holds the newest builds strongly, up to recentBytes, so that
// readers a moment apart (watchers resuming one after another, relists
// in a row) share them even across a collection; older builds live
// only as long as a reader holds them.
var recent keepAlive

// keepAlive is a queue of builds bounded by their total size.
type keepAlive struct {
	mu    sync.Mutex
	queue []*built
	head  int
	bytes int
}

func (k *keepAlive) hold(b *built) {
	if b.size() > recentBytes/4 {
		return // one build would crowd out the rest
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.queue = append(k.queue, b)
	k.bytes += b.size()
	for k.bytes > recentBytes {
		k.bytes -= k.queue[k.head].size()
		k.queue[k.head] = nil
		k.head++
	}
	// Compact once the dropped part is the larger half.
	if k.head > len(k.queue)/2 {
		n := copy(k.queue, k.queue[k.head:])
		clear(k.queue[n:])
		k.queue, k.head = k.queue[:n], 0
	}
}
