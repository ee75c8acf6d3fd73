package events

import (
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// spamKey is who says what kind of thing about which object. The type is
// part of it (as in client-go since 1.29) so that a flood of Normal
// Events cannot silence the Warning that explains it.
type spamKey struct {
	component, host                             string
	apiVersion, kind, namespace, name, uid, typ string
}

func spamKeyOf(ev *corev1.Event) spamKey {
	o := ev.InvolvedObject
	return spamKey{
		component: ev.Source.Component, host: ev.Source.Host,
		apiVersion: o.APIVersion, kind: o.Kind, namespace: o.Namespace, name: o.Name, uid: string(o.UID),
		typ: ev.Type,
	}
}

// bucket is a token bucket that refills one token per interval up to
// burst. It holds a fractional balance so refills are exact however
// often it is asked.
type bucket struct {
	tokens float64
	at     time.Time
}

func (b *bucket) take(now time.Time, burst int, refill time.Duration) bool {
	if elapsed := now.Sub(b.at); elapsed > 0 {
		b.tokens = min(float64(burst), b.tokens+float64(elapsed)/float64(refill))
		b.at = now
	}
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// spamFilter keeps a bucket per spamKey for the most recently active
// keys. Callers of Event reach it concurrently.
type spamFilter struct {
	burst  int
	refill time.Duration

	mu      sync.Mutex
	buckets *lru[spamKey, *bucket]
}

func newSpamFilter(size, burst int, refill time.Duration) *spamFilter {
	return &spamFilter{burst: burst, refill: refill, buckets: newLRU[spamKey, *bucket](size)}
}

// allow reports whether an Event with key k may be recorded at now, and
// charges it if so. A key the cache forgot starts with a full bucket,
// as a new one does.
func (f *spamFilter) allow(k spamKey, now time.Time) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.buckets.get(k)
	if !ok {
		b = &bucket{tokens: float64(f.burst), at: now}
		f.buckets.put(k, b)
	}
	return b.take(now, f.burst, f.refill)
}
