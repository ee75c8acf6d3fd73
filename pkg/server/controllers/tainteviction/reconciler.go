package tainteviction

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/events"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// writer is what evicting needs of the server.
type writer interface {
	UpdateStatus(ctx context.Context, obj client.Object, opts ...client.WriteOption) error
	Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error
}

type reconciler struct {
	cache    client.Reader // Pods and Nodes from informers
	api      writer
	clock    clock.Clock
	recorder *events.Recorder
}

func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	pod := &corev1.Pod{}
	if err := r.cache.Get(ctx, req.NamespacedName, pod); err != nil {
		if client.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	if pod.Spec.NodeName == "" || pod.DeletionTimestamp != nil {
		return reconcile.Result{}, nil
	}
	node := &corev1.Node{}
	if err := r.cache.Get(ctx, types.NamespacedName{Name: pod.Spec.NodeName}, node); err != nil {
		if client.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	now := r.clock.Now()
	at, due := Due(pod, node.Spec.Taints, now)
	if !due {
		return reconcile.Result{}, nil
	}
	if wait := at.Sub(now); wait > 0 {
		return reconcile.Result{RequeueAfter: wait}, nil
	}
	return reconcile.Result{}, r.evict(ctx, pod)
}

// evict marks pod as a disruption target, as kube does so that Jobs
// and disruption budgets see why it went, then deletes it.
func (r *reconciler) evict(ctx context.Context, pod *corev1.Pod) error {
	if r.recorder != nil {
		r.recorder.Eventf(pod, corev1.EventTypeNormal, "TaintManagerEviction", "Marking for deletion Pod %s/%s", pod.Namespace, pod.Name)
	}
	pod = pod.DeepCopy()
	cond := corev1.PodCondition{
		Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: "DeletionByTaintManager",
		Message: "Taint manager: deleting due to NoExecute taint", LastTransitionTime: metav1.NewTime(r.clock.Now()),
	}
	replaced := false
	for i, c := range pod.Status.Conditions {
		if c.Type == cond.Type {
			pod.Status.Conditions[i], replaced = cond, true
		}
	}
	if !replaced {
		pod.Status.Conditions = append(pod.Status.Conditions, cond)
	}
	if err := r.api.UpdateStatus(ctx, pod); err != nil && !client.IsNotFound(err) {
		return fmt.Errorf("marking the pod a disruption target: %w", err)
	}
	if err := r.api.Delete(ctx, pod); err != nil && !client.IsNotFound(err) {
		return fmt.Errorf("evicting the pod: %w", err)
	}
	reconcile.Logger(ctx).InfoContext(ctx, "evicted pod from tainted node", "node", pod.Spec.NodeName)
	return nil
}
