package job

import (
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// expectationsTimeout is how long a Job waits for its cache to show its
// own creates and deletes before it acts regardless, so a lost watch
// event cannot stall it for ever; kube waits 5 minutes.
const expectationsTimeout = 5 * time.Minute

// expectations remember, per Job, the writes to its pods that its
// informer's cache has not shown yet: pods created (by name) and
// deleted (by UID), which would otherwise be created again, and pods
// whose tracking finalizer was removed (by UID), which would otherwise
// be counted again.
type expectations struct {
	mu    sync.Mutex
	byJob map[types.NamespacedName]*expected
}

type expected struct {
	created    map[string]struct{}
	deleted    map[types.UID]string // with the pod's name
	finalizers map[types.UID]string // removals, with the pod's name
	since      time.Time            // of the newest create or delete
}

func (e *expectations) entry(job types.NamespacedName) *expected {
	if e.byJob == nil {
		e.byJob = map[types.NamespacedName]*expected{}
	}
	x := e.byJob[job]
	if x == nil {
		x = &expected{created: map[string]struct{}{}, deleted: map[types.UID]string{}, finalizers: map[types.UID]string{}}
		e.byJob[job] = x
	}
	return x
}

func (e *expectations) created(job types.NamespacedName, name string, now time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	x := e.entry(job)
	x.created[name] = struct{}{}
	x.since = now
}

func (e *expectations) deleting(job types.NamespacedName, pod *corev1.Pod, now time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	x := e.entry(job)
	x.deleted[pod.UID] = pod.Name
	x.since = now
}

// undoDelete drops the expectation of a delete that failed.
func (e *expectations) undoDelete(job types.NamespacedName, uid types.UID) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if x := e.byJob[job]; x != nil {
		delete(x.deleted, uid)
	}
}

func (e *expectations) removingFinalizer(job types.NamespacedName, pod *corev1.Pod) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.entry(job).finalizers[pod.UID] = pod.Name
}

// undoFinalizer drops the expectation of a finalizer removal that
// failed.
func (e *expectations) undoFinalizer(job types.NamespacedName, uid types.UID) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if x := e.byJob[job]; x != nil {
		delete(x.finalizers, uid)
	}
}

func (e *expectations) forget(job types.NamespacedName) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.byJob, job)
}

// observe drops what the cache, whose pods of the Job's namespace
// byName holds, shows done. It reports whether every create and delete
// is seen (or older than expectationsTimeout), and returns the pods
// whose finalizer removal is not seen yet.
func (e *expectations) observe(job types.NamespacedName, byName map[string]*corev1.Pod, now time.Time) (satisfied bool, removing map[types.UID]bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	x := e.byJob[job]
	if x == nil {
		return true, nil
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
	removing = map[types.UID]bool{}
	for uid, name := range x.finalizers {
		if p, ok := byName[name]; !ok || p.UID != uid || !hasTrackingFinalizer(p) {
			delete(x.finalizers, uid)
			continue
		}
		removing[uid] = true
	}
	satisfied = len(x.created) == 0 && len(x.deleted) == 0
	if !satisfied && now.Sub(x.since) >= expectationsTimeout {
		clear(x.created)
		clear(x.deleted)
		satisfied = true
	}
	return satisfied, removing
}

func hasTrackingFinalizer(pod *corev1.Pod) bool {
	for _, f := range pod.Finalizers {
		if f == batchv1.JobTrackingFinalizer {
			return true
		}
	}
	return false
}
