package scheduler

import (
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/server/controllers/scheduler/placement"
)

// view is the scheduler's picture of the cluster, fed by the informers
// and by its own bindings: the nodes with the pods on them, and the
// pods that did not fit. Its methods are safe for concurrent use.
type view struct {
	mu    sync.Mutex
	nodes map[string]*placement.NodeInfo
	// onNode says where each counted pod is, by uid.
	onNode map[types.UID]string
	// orphans are pods bound to nodes the view does not know yet; they
	// join their node when it arrives.
	orphans map[string]map[types.UID]*placement.PodInfo
	// failures tracks the pods that did not fit, for back-off and for
	// retrying them when the cluster changes.
	failures map[types.NamespacedName]*failure
	// nsLabels are the namespaces' labels, for affinity terms with a
	// namespaceSelector.
	nsLabels map[string]map[string]string
}

// failure is a pending pod's record of failed attempts.
type failure struct {
	uid      types.UID
	attempts int
	last     time.Time
}

func newView() *view {
	return &view{
		nodes:    map[string]*placement.NodeInfo{},
		onNode:   map[types.UID]string{},
		orphans:  map[string]map[types.UID]*placement.PodInfo{},
		failures: map[types.NamespacedName]*failure{},
		nsLabels: map[string]map[string]string{},
	}
}

// setNode adds or replaces a node, and takes in the pods that were
// waiting for it.
func (v *view) setNode(n *corev1.Node) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if ni, ok := v.nodes[n.Name]; ok {
		ni.SetNode(n)
		return
	}
	ni := placement.NewNodeInfo(n)
	for _, pi := range v.orphans[n.Name] {
		ni.AddPod(pi)
	}
	delete(v.orphans, n.Name)
	v.nodes[n.Name] = ni
}

// deleteNode forgets a node; its pods wait as orphans should it return
// (kube's pod garbage collector deletes them otherwise).
func (v *view) deleteNode(name string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	ni, ok := v.nodes[name]
	if !ok {
		return
	}
	delete(v.nodes, name)
	if len(ni.Pods) > 0 {
		m := make(map[types.UID]*placement.PodInfo, len(ni.Pods))
		for _, pi := range ni.Pods {
			m[pi.Pod.UID] = pi
		}
		v.orphans[name] = m
	}
}

// place counts pod on node, replacing whatever the view counted for it
// (an assumption, or an older copy).
func (v *view) place(pod *corev1.Pod, node string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.placeLocked(pod, node)
}

func (v *view) placeLocked(pod *corev1.Pod, node string) {
	v.removeLocked(pod.UID)
	pi := placement.NewPodInfo(pod)
	v.onNode[pod.UID] = node
	if ni, ok := v.nodes[node]; ok {
		ni.AddPod(pi)
		return
	}
	if v.orphans[node] == nil {
		v.orphans[node] = map[types.UID]*placement.PodInfo{}
	}
	v.orphans[node][pod.UID] = pi
}

// remove stops counting the pod with the given uid.
func (v *view) remove(uid types.UID) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.removeLocked(uid)
}

func (v *view) removeLocked(uid types.UID) {
	node, ok := v.onNode[uid]
	if !ok {
		return
	}
	delete(v.onNode, uid)
	if ni, ok := v.nodes[node]; ok {
		ni.RemovePod(string(uid))
		return
	}
	delete(v.orphans[node], uid)
	if len(v.orphans[node]) == 0 {
		delete(v.orphans, node)
	}
}

// counted reports whether the view counts the pod on a node: bound, or
// assumed while its binding travels.
func (v *view) counted(uid types.UID) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	_, ok := v.onNode[uid]
	return ok
}

// forget drops the failure record of a pod that no longer waits (bound,
// deleted, finished).
func (v *view) forget(key types.NamespacedName) {
	v.mu.Lock()
	defer v.mu.Unlock()
	delete(v.failures, key)
}

// failed notes an attempt that found no node, and returns how many
// attempts failed in a row.
func (v *view) failed(key types.NamespacedName, uid types.UID, now time.Time) int {
	v.mu.Lock()
	defer v.mu.Unlock()
	f, ok := v.failures[key]
	if !ok || f.uid != uid {
		f = &failure{uid: uid}
		v.failures[key] = f
	}
	f.attempts++
	f.last = now
	return f.attempts
}

// failure is the failure record of the pod with this name and uid, if
// it has one (a pod created anew under an old name starts afresh).
func (v *view) failure(key types.NamespacedName, uid types.UID) (failure, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	f, ok := v.failures[key]
	if !ok || f.uid != uid {
		return failure{}, false
	}
	return *f, true
}

// unschedulable lists the pods that failed, to retry after a change.
func (v *view) unschedulable() []types.NamespacedName {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := make([]types.NamespacedName, 0, len(v.failures))
	for k := range v.failures {
		out = append(out, k)
	}
	return out
}

// setNamespace records a namespace's labels; nil forgets it.
func (v *view) setNamespace(name string, labels map[string]string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if labels == nil {
		delete(v.nsLabels, name)
		return
	}
	v.nsLabels[name] = labels
}

// scheduleAndAssume runs one decision on the view as it stands and, when
// a node fits, counts the pod on it at once (kube's assumed pod), before
// the binding is even sent: the next decision sees the room taken, so
// bindings may run in parallel while decisions stay one at a time. The
// watch's copy of the bound pod later replaces the assumption, and a
// binding the server refuses removes it (remove).
//
// The lock is held throughout: the informers' handlers wait, so the
// snapshot is consistent without copying it.
func (v *view) scheduleAndAssume(pod *corev1.Pod) (placement.Decision, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	snap := &placement.Snapshot{
		Nodes:           make([]*placement.NodeInfo, 0, len(v.nodes)),
		NamespaceLabels: func(ns string) map[string]string { return v.nsLabels[ns] },
	}
	for _, ni := range v.nodes {
		snap.Nodes = append(snap.Nodes, ni)
	}
	d, err := placement.Schedule(pod, snap)
	if err != nil {
		return d, err
	}
	assumed := pod.DeepCopy()
	assumed.Spec.NodeName = d.Node
	v.placeLocked(assumed, d.Node)
	return d, nil
}
