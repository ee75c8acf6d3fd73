package replicaset

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// burstReplicas bounds the pods one pass creates or deletes, as kube's
// --replicaset burst does, so a large scale change is spread over passes
// that each see the outcome of the last.
const burstReplicas = 500

// Change is what a pass does to a ReplicaSet's pods: Create more from
// its template, or Delete these, in this order.
type Change struct {
	Create int
	Delete []*corev1.Pod
}

// Plan is the change that brings owned, the active pods rs owns, to its
// replica count; related are the pods that share its nodes' spread (see
// DeletionOrder). A ReplicaSet being deleted changes nothing.
func Plan(rs *appsv1.ReplicaSet, owned, related []*corev1.Pod, now time.Time) Change {
	if rs.DeletionTimestamp != nil {
		return Change{}
	}
	diff := len(owned) - int(replicas(rs))
	switch {
	case diff < 0:
		return Change{Create: min(-diff, burstReplicas)}
	case diff > 0:
		diff = min(diff, burstReplicas)
		return Change{Delete: DeletionOrder(owned, related, now)[:diff]}
	}
	return Change{}
}
