package daemonset

import (
	"fmt"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
)

// Back-off between deletes of failed daemon pods on one node, as kube's:
// a kubelet that keeps refusing a pod must not make the controller
// delete and recreate it in a hot loop.
const (
	failedBackoffInitial = time.Second
	failedBackoffMax     = 15 * time.Minute
)

// failedBackoff paces the deletion of failed pods per DaemonSet
// generation and node. The zero value is ready to use.
type failedBackoff struct {
	mu      sync.Mutex
	entries map[string]backoffEntry
}

type backoffEntry struct {
	delay time.Duration
	last  time.Time
}

// failedBackoffKey names a node's back-off: a new generation of the
// DaemonSet starts afresh.
func failedBackoffKey(ds *appsv1.DaemonSet, node string) string {
	return fmt.Sprintf("%s/%d/%s", ds.UID, ds.Status.ObservedGeneration, node)
}

// wait is how long the failed pod of key must still wait to be deleted;
// 0 when it may go now.
func (b *failedBackoff) wait(key string, now time.Time) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	e, ok := b.entries[key]
	if !ok || now.Sub(e.last) >= e.delay {
		return 0
	}
	return e.delay
}

// next records a delete of key's failed pod at now: the delay doubles,
// up to the maximum, or starts over after a long quiet spell. Entries
// quiet that long are dropped.
func (b *failedBackoff) next(key string, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.entries == nil {
		b.entries = map[string]backoffEntry{}
	}
	for k, e := range b.entries {
		if now.Sub(e.last) > 2*failedBackoffMax {
			delete(b.entries, k)
		}
	}
	e, ok := b.entries[key]
	if !ok {
		e.delay = failedBackoffInitial
	} else {
		e.delay = min(2*e.delay, failedBackoffMax)
	}
	e.last = now
	b.entries[key] = e
}
