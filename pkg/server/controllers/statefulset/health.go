package statefulset

import (
	"time"

	corev1 "k8s.io/api/core/v1"
)

// created reports whether the server has seen pod: a pod only planned
// has no phase yet.
func created(pod *corev1.Pod) bool { return pod.Status.Phase != "" }

func terminating(pod *corev1.Pod) bool { return pod.DeletionTimestamp != nil }

// finished pods are replaced whatever their exit: a pod evicted or
// stopped with its node ends Succeeded or Failed by its containers'
// exit codes, not by why it ended.
func finished(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded
}

func readyCondition(pod *corev1.Pod) *corev1.PodCondition {
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == corev1.PodReady {
			return &pod.Status.Conditions[i]
		}
	}
	return nil
}

// runningAndReady: phase Running and the Ready condition true.
func runningAndReady(pod *corev1.Pod) bool {
	c := readyCondition(pod)
	return pod.Status.Phase == corev1.PodRunning && c != nil && c.Status == corev1.ConditionTrue
}

// available: Ready for at least minReadySeconds by now (kube's
// IsPodAvailable, which does not look at the phase).
func available(pod *corev1.Pod, minReadySeconds int32, now time.Time) bool {
	c := readyCondition(pod)
	if c == nil || c.Status != corev1.ConditionTrue {
		return false
	}
	if minReadySeconds == 0 {
		return true
	}
	minReady := time.Duration(minReadySeconds) * time.Second
	return !c.LastTransitionTime.IsZero() && c.LastTransitionTime.Add(minReady).Before(now)
}

// healthy: running, ready and not going away.
func healthy(pod *corev1.Pod) bool { return runningAndReady(pod) && !terminating(pod) }
