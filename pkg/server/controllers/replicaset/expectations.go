package replicaset

import (
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// expectationsTimeout is how long a ReplicaSet waits for its cache to
// show its own creates and deletes before it acts regardless: a watch
// that lost an event must not stall it for ever. kube waits 5 minutes.
const expectationsTimeout = 5 * time.Minute

// expectations remember, per ReplicaSet, the pods its passes created and
// deleted until the informer's cache shows them. Until then another pass
// would count a created pod as missing and create it again.
type expectations struct {
	mu   sync.Mutex
	byRS map[types.NamespacedName]*expected
}

type expected struct {
	created map[string]struct{}  // names of pods created
	deleted map[types.UID]string // UIDs of pods deleted, with their names
	since   time.Time            // the newest expectation
}

func (e *expectations) entry(rs types.NamespacedName, now time.Time) *expected {
	if e.byRS == nil {
		e.byRS = map[types.NamespacedName]*expected{}
	}
	x := e.byRS[rs]
	if x == nil {
		x = &expected{created: map[string]struct{}{}, deleted: map[types.UID]string{}}
		e.byRS[rs] = x
	}
	x.since = now
	return x
}

// created expects the cache to show pod name.
func (e *expectations) created(rs types.NamespacedName, name string, now time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.entry(rs, now).created[name] = struct{}{}
}

// deleting expects the cache to show pod gone or going.
func (e *expectations) deleting(rs types.NamespacedName, pod *corev1.Pod, now time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.entry(rs, now).deleted[pod.UID] = pod.Name
}

// undo drops the expectation of a delete that failed.
func (e *expectations) undo(rs types.NamespacedName, uid types.UID) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if x := e.byRS[rs]; x != nil {
		delete(x.deleted, uid)
	}
}

// forget drops every expectation of a ReplicaSet that is gone.
func (e *expectations) forget(rs types.NamespacedName) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.byRS, rs)
}

// satisfied reports whether the cache, whose pods of the ReplicaSet's
// namespace byName holds, shows everything expected of rs, dropping what
// it shows; expectations older than expectationsTimeout are dropped too.
func (e *expectations) satisfied(rs types.NamespacedName, byName map[string]*corev1.Pod, now time.Time) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	x := e.byRS[rs]
	if x == nil {
		return true
	}
	for name := range x.created {
		if _, ok := byName[name]; ok {
			delete(x.created, name)
		}
	}
	for uid, name := range x.deleted {
		if p, ok := byName[name]; !ok || p.UID != uid || p.DeletionTimestamp != nil {
			delete(x.deleted, uid)
		}
	}
	if len(x.created) == 0 && len(x.deleted) == 0 || now.Sub(x.since) >= expectationsTimeout {
		delete(e.byRS, rs)
		return true
	}
	return false
}
