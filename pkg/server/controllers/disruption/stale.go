package disruption

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// StaleDisruptionTimeout is how long a pod may carry a True
// DisruptionTarget condition without being deleted before the
// controller sets it False, as kube's: the eviction that set it did not
// go through.
const StaleDisruptionTimeout = 2 * time.Minute

// StaleDisruption reports whether pod carries a DisruptionTarget
// condition that may go stale (True, not the kubelet's, on a pod neither
// being deleted nor finished), and how long until it is stale (0: now).
func StaleDisruption(pod *corev1.Pod, now time.Time) (bool, time.Duration) {
	if pod.DeletionTimestamp != nil || pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return false, 0
	}
	for _, c := range pod.Status.Conditions {
		if c.Type != corev1.DisruptionTarget {
			continue
		}
		if c.Status != corev1.ConditionTrue || c.Reason == corev1.PodReasonTerminationByKubelet {
			return false, 0
		}
		return true, max(StaleDisruptionTimeout-now.Sub(c.LastTransitionTime.Time), 0)
	}
	return false, 0
}

// clearDisruption sets pod's DisruptionTarget condition False at now,
// with no reason, as kube does to a stale one.
func clearDisruption(pod *corev1.Pod, now time.Time) {
	for i, c := range pod.Status.Conditions {
		if c.Type == corev1.DisruptionTarget {
			pod.Status.Conditions[i] = corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionFalse, LastTransitionTime: metav1.NewTime(now)}
		}
	}
}

// staleReconciler clears the stale DisruptionTarget condition of one
// pod, or comes back when it goes stale.
type staleReconciler struct {
	cache client.Reader
	api   client.Writer
	clock clock.Clock
}

func (r *staleReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	pod := &corev1.Pod{}
	if err := r.cache.Get(ctx, req.NamespacedName, pod); err != nil {
		if client.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	now := r.clock.Now()
	has, wait := StaleDisruption(pod, now)
	switch {
	case !has:
		return reconcile.Result{}, nil
	case wait > 0:
		return reconcile.Result{RequeueAfter: wait}, nil
	}
	pod = pod.DeepCopy()
	clearDisruption(pod, now)
	return reconcile.Result{}, r.api.UpdateStatus(ctx, pod)
}
