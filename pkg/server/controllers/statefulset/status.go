package statefulset

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// countPods sets status's counts from pods: replicas are pods the
// server has seen; ready ones are Running and Ready, available ones
// Ready for minReadySeconds; current and updated ones carry those
// revisions and are not terminating.
func countPods(st *appsv1.StatefulSetStatus, set *appsv1.StatefulSet, current, update string, now time.Time, pods ...[]*corev1.Pod) {
	st.Replicas, st.ReadyReplicas, st.AvailableReplicas, st.CurrentReplicas, st.UpdatedReplicas = 0, 0, 0, 0, 0
	for _, list := range pods {
		for _, p := range list {
			if created(p) {
				st.Replicas++
			}
			if runningAndReady(p) {
				st.ReadyReplicas++
				if available(p, set.Spec.MinReadySeconds, now) {
					st.AvailableReplicas++
				}
			}
			if created(p) && !terminating(p) {
				if Revision(p) == current {
					st.CurrentReplicas++
				}
				if Revision(p) == update {
					st.UpdatedReplicas++
				}
			}
		}
	}
}

// Complete finishes a rolling update in st once every replica is
// updated and ready: the update revision becomes the current one.
func Complete(set *appsv1.StatefulSet, st *appsv1.StatefulSetStatus) {
	want := replicas(set)
	if set.Spec.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType &&
		st.UpdatedReplicas == want && st.ReadyReplicas == want && st.Replicas == want {
		st.CurrentReplicas = st.UpdatedReplicas
		st.CurrentRevision = st.UpdateRevision
	}
}

// StatusChanged reports whether st must be written: kube writes when the
// generation observed advanced or a count or revision differs (not for
// a collision count alone).
func StatusChanged(set *appsv1.StatefulSet, st *appsv1.StatefulSetStatus) bool {
	old := &set.Status
	return st.ObservedGeneration > old.ObservedGeneration ||
		st.Replicas != old.Replicas || st.CurrentReplicas != old.CurrentReplicas ||
		st.ReadyReplicas != old.ReadyReplicas || st.UpdatedReplicas != old.UpdatedReplicas ||
		st.CurrentRevision != old.CurrentRevision || st.AvailableReplicas != old.AvailableReplicas ||
		st.UpdateRevision != old.UpdateRevision
}
