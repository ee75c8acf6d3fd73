// Package backoff paces the built-in controllers that wait for objects
// held by finalizers (a namespace's content, a CRD's custom resources):
// nothing announces that a finalizer went, so they look again, sooner
// while the wait makes progress and seldom when it is stuck.
package backoff

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// Backoff decides when to look again at an object whose dependents are
// held by finalizers. A wait that makes progress (fewer remaining than
// the last look) starts over at the shortest delay, so an object whose
// finalizers are being worked through finishes promptly, while one
// stuck on an absent controller costs little.
type Backoff struct {
	min, max time.Duration

	mu    sync.Mutex
	waits map[string]wait // by object name
}

type wait struct {
	uid       types.UID // a new object of the same name starts afresh
	looks     int
	remaining int
}

// Defaults for New's zero arguments.
const (
	DefaultMin = 50 * time.Millisecond
	DefaultMax = 30 * time.Second
)

// New returns a Backoff from lo doubling to hi; zero means DefaultMin
// and DefaultMax.
func New(lo, hi time.Duration) *Backoff {
	if lo <= 0 {
		lo = DefaultMin
	}
	if hi <= 0 {
		hi = DefaultMax
	}
	return &Backoff{min: lo, max: max(hi, lo), waits: map[string]wait{}}
}

// Next records a look at object name that found remaining objects and
// returns how long to wait before the next one.
func (b *Backoff) Next(name string, uid types.UID, remaining int) time.Duration {
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

// Forget ends the wait of object name.
func (b *Backoff) Forget(name string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.waits, name)
}
