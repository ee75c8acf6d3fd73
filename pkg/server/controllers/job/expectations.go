package job

import (
	"sync"
	"time"

	podexp "github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/expectations"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// expectationsTimeout is how long a Job waits for its cache to show its
// own creates and deletes before it acts regardless.
const expectationsTimeout = podexp.Timeout

// expectations remember, per Job, the writes to its pods that its
// informer's cache has not shown yet: pods created and deleted (the
// shared expectations), which would otherwise be created again, and
// pods whose tracking finalizer was removed (by UID), which would
// otherwise be counted again.
type expectations struct {
	pods podexp.Expectations

	mu         sync.Mutex
	finalizers map[types.NamespacedName]map[types.UID]string // removals, with the pod's name
}

func (e *expectations) created(job types.NamespacedName, name string, now time.Time) {
	e.pods.Created(job, name, now)
}

func (e *expectations) deleting(job types.NamespacedName, pod *corev1.Pod, now time.Time) {
	e.pods.Deleting(job, pod, now)
}

// undoDelete drops the expectation of a delete that failed.
func (e *expectations) undoDelete(job types.NamespacedName, uid types.UID) { e.pods.Undo(job, uid) }

func (e *expectations) removingFinalizer(job types.NamespacedName, pod *corev1.Pod) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.finalizers == nil {
		e.finalizers = map[types.NamespacedName]map[types.UID]string{}
	}
	if e.finalizers[job] == nil {
		e.finalizers[job] = map[types.UID]string{}
	}
	e.finalizers[job][pod.UID] = pod.Name
}

// undoFinalizer drops the expectation of a finalizer removal that
// failed.
func (e *expectations) undoFinalizer(job types.NamespacedName, uid types.UID) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.finalizers[job], uid)
}

func (e *expectations) forget(job types.NamespacedName) {
	e.pods.Forget(job)
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.finalizers, job)
}

// observe drops what the cache, whose pods of the Job's namespace are
// pods, shows done. It reports whether every create and delete
// is seen (or older than expectationsTimeout), and returns the pods
// whose finalizer removal is not seen yet.
func (e *expectations) observe(job types.NamespacedName, pods []*corev1.Pod, now time.Time) (satisfied bool, removing map[types.UID]bool) {
	satisfied = e.pods.Satisfied(job, pods, now)
	e.mu.Lock()
	defer e.mu.Unlock()
	pending := e.finalizers[job]
	if pending == nil {
		return satisfied, nil
	}
	// A removal is seen once its pod is gone, replaced by a namesake,
	// or without the finalizer.
	removing = map[types.UID]bool{}
	for _, p := range pods {
		if name, ok := pending[p.UID]; ok && name == p.Name && hasTrackingFinalizer(p) {
			removing[p.UID] = true
		}
	}
	for uid := range pending {
		if !removing[uid] {
			delete(pending, uid)
		}
	}
	if len(pending) == 0 {
		delete(e.finalizers, job)
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
