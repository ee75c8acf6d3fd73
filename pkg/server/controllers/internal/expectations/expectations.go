// Package expectations remembers the pods a built-in controller created
// and deleted until its informer's cache shows them, for the controllers
// that keep a count of pods (DaemonSets; the ReplicaSet controller keeps
// its own copy of the same idea). Until the cache catches up, another
// pass would count a created pod as missing and create it again.
package expectations

import (
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Timeout is how long an owner waits for its cache to show its own
// creates and deletes before it acts regardless: a watch that lost an
// event must not stall it for ever. kube waits 5 minutes.
const Timeout = 5 * time.Minute

// Expectations hold, per owner, the pods its passes created and deleted.
// The zero value is ready to use.
type Expectations struct {
	mu    sync.Mutex
	owner map[types.NamespacedName]*expected
}

type expected struct {
	created map[string]struct{}  // names of pods created
	deleted map[types.UID]string // UIDs of pods deleted, with their names
	since   time.Time            // the newest expectation
}

func (e *Expectations) entry(owner types.NamespacedName, now time.Time) *expected {
	if e.owner == nil {
		e.owner = map[types.NamespacedName]*expected{}
	}
	x := e.owner[owner]
	if x == nil {
		x = &expected{created: map[string]struct{}{}, deleted: map[types.UID]string{}}
		e.owner[owner] = x
	}
	x.since = now
	return x
}

// Created expects the cache to show pod name.
func (e *Expectations) Created(owner types.NamespacedName, name string, now time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.entry(owner, now).created[name] = struct{}{}
}

// Deleting expects the cache to show pod gone or going.
func (e *Expectations) Deleting(owner types.NamespacedName, pod *corev1.Pod, now time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.entry(owner, now).deleted[pod.UID] = pod.Name
}

// Undo drops the expectation of a delete that failed.
func (e *Expectations) Undo(owner types.NamespacedName, uid types.UID) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if x := e.owner[owner]; x != nil {
		delete(x.deleted, uid)
	}
}

// Forget drops every expectation of an owner that is gone.
func (e *Expectations) Forget(owner types.NamespacedName) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.owner, owner)
}

// Satisfied reports whether the cache, whose pods of the owner's
// namespace pods are, shows everything expected of owner, dropping
// what it shows; expectations older than Timeout are dropped too.
func (e *Expectations) Satisfied(owner types.NamespacedName, pods []*corev1.Pod, now time.Time) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	x := e.owner[owner]
	if x == nil {
		return true
	}
	if len(x.created) > 0 || len(x.deleted) > 0 {
		// A delete is seen once its pod is gone, going, or replaced
		// by a namesake: only a pod still there as it was keeps it.
		var there map[types.UID]bool
		for _, p := range pods {
			delete(x.created, p.Name)
			if name, ok := x.deleted[p.UID]; ok && name == p.Name && p.DeletionTimestamp == nil {
				if there == nil {
					there = map[types.UID]bool{}
				}
				there[p.UID] = true
			}
		}
		for uid := range x.deleted {
			if !there[uid] {
				delete(x.deleted, uid)
			}
		}
	}
	if len(x.created) == 0 && len(x.deleted) == 0 || now.Sub(x.since) >= Timeout {
		delete(e.owner, owner)
		return true
	}
	return false
}
