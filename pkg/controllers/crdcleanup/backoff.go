package crdcleanup

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// backoff decides when to look again at a CRD whose custom resources are
// held by finalizers. A wait that makes progress (fewer objects than the
// last look) starts over at the shortest delay, so a CRD whose
// finalizers are being worked through is finished promptly, while one
// stuck on an absent controller costs little.
type backoff struct {
	min, max time.Duration

	mu    sync.Mutex
	waits map[string]wait // by CRD name
}

type wait struct {
	uid       types.UID // a new CRD of the same name starts afresh
	looks     int
	remaining int
}

func newBackoff(lo, hi time.Duration) *backoff {
	return &backoff{min: lo, max: hi, waits: map[string]wait{}}
}

// next records a look at CRD name that found remaining objects
// and returns how long to wait before the next one.
func (b *backoff) next(name string, uid types.UID, remaining int) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	w, ok := b.waits[name]
	if !ok || w.uid != uid || remaining < w.remaining {
		w = wait{uid: uid}
	}
	d := b.min
	for i := 0; i < w.looks && d < b.max; i++ {
		d *= 2
	}
	w.looks++
	w.remaining = remaining
	b.waits[name] = w
	return min(d, b.max)
}

// forget ends the wait of CRD name.
func (b *backoff) forget(name string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.waits, name)
}
