package scheduler

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/scheduler/placement"
)

// podAPI is what the scheduler writes: bindings and pod status.
type podAPI interface {
	CreateSubresource(ctx context.Context, obj client.Object, subresource string, body client.Object, opts ...client.WriteOption) error
	UpdateStatus(ctx context.Context, obj client.Object, opts ...client.WriteOption) error
}

// recorder records Events; *events.Recorder is one.
type recorder interface {
	Eventf(obj client.Object, eventtype, reason, format string, args ...any)
}

// eventNoteLimit is the longest Event message the API takes; longer
// ones are cut with " ..." as kube-scheduler cuts them.
const eventNoteLimit = 1024

// reconciler schedules the pod each request names.
type reconciler struct {
	pods   client.Reader // the informer's copy
	view   *view
	api    podAPI
	events recorder
	clock  clock.Clock
	opts   Options
}

func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	pod := &corev1.Pod{}
	if err := r.pods.Get(ctx, req.NamespacedName, pod); err != nil {
		if client.IsNotFound(err) {
			r.view.forget(req.NamespacedName)
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	if !takes(pod, r.opts.SchedulerName) {
		r.view.forget(req.NamespacedName)
		return reconcile.Result{}, nil
	}
	if r.view.counted(pod.UID) {
		// Bound by this scheduler; the cache has not seen it yet.
		return reconcile.Result{}, nil
	}
	if wait := r.backoffLeft(pod); wait > 0 {
		return reconcile.Result{RequeueAfter: wait}, nil
	}
	d, err := r.view.scheduleAndAssume(pod)
	if err != nil {
		return r.unschedulable(ctx, pod, err)
	}
	return r.bind(ctx, pod, d.Node)
}

// takes reports whether the pod is this scheduler's to place: unbound,
// naming it, not finished, not being deleted, and without scheduling
// gates (kube's SchedulingGates PreEnqueue; the API server wrote their
// SchedulingGated condition, and removing the last gate is a spec
// update, which queues the pod).
func takes(p *corev1.Pod, schedulerName string) bool {
	return p.Spec.NodeName == "" && p.Spec.SchedulerName == schedulerName && p.DeletionTimestamp == nil &&
		len(p.Spec.SchedulingGates) == 0 && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed
}

// backoffLeft is how long the pod must still wait after its last failed
// attempt: InitialBackoff doubled per failure, at most MaxBackoff.
func (r *reconciler) backoffLeft(pod *corev1.Pod) time.Duration {
	f, ok := r.view.failure(keyOf(pod), pod.UID)
	if !ok {
		return 0
	}
	d := r.opts.InitialBackoff
	for i := 1; i < f.attempts && d < r.opts.MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, r.opts.MaxBackoff)
	return f.last.Add(d).Sub(r.clock.Now())
}

// bind posts the Binding of a pod the view already counts on the node;
// a binding the server refuses is forgotten again.
func (r *reconciler) bind(ctx context.Context, pod *corev1.Pod, node string) (reconcile.Result, error) {
	b := &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
		Target:     corev1.ObjectReference{Kind: "Node", Name: node},
	}
	if err := r.api.CreateSubresource(ctx, pod, "binding", b); err != nil {
		// Whatever the refusal (the pod gone, bound by someone else, the
		// server away), the pod is tried again: the cache then tells
		// whether it still waits, as kube-scheduler requeues a pod whose
		// binding failed.
		r.view.remove(pod.UID)
		return reconcile.Result{}, &BindError{Pod: pod.Namespace + "/" + pod.Name, Node: node, Err: err}
	}
	r.view.forget(keyOf(pod))
	r.events.Eventf(pod, corev1.EventTypeNormal, "Scheduled", "Successfully assigned %v/%v to %v", pod.Namespace, pod.Name, node)
	reconcile.Logger(ctx).DebugContext(ctx, "pod bound", "node", node)
	return reconcile.Result{}, nil
}

// unschedulable reports a pod no node took: a FailedScheduling Event
// and the PodScheduled condition, False with kube-scheduler's reason and
// message. The pod then waits for a change, or RetryUnschedulable.
func (r *reconciler) unschedulable(ctx context.Context, pod *corev1.Pod, err error) (reconcile.Result, error) {
	reason := corev1.PodReasonUnschedulable
	var fe *placement.FitError
	if !errors.As(err, &fe) {
		// kube reports an empty cluster as an error of the scheduler's.
		reason = corev1.PodReasonSchedulerError
	}
	msg := err.Error()
	attempts := r.view.failed(keyOf(pod), pod.UID, r.clock.Now())
	reconcile.Logger(ctx).InfoContext(ctx, "pod unschedulable", "attempts", attempts, "message", msg)
	r.events.Eventf(pod, corev1.EventTypeWarning, "FailedScheduling", "%s", truncate(msg))
	cond := corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: reason, Message: msg}
	if updated, changed := withCondition(pod, cond, r.clock.Now()); changed {
		if err := r.api.UpdateStatus(ctx, updated); err != nil {
			if client.IsNotFound(err) {
				return reconcile.Result{}, nil
			}
			return reconcile.Result{}, fmt.Errorf("writing the PodScheduled condition: %w", err)
		}
	}
	return reconcile.Result{RequeueAfter: r.opts.RetryUnschedulable}, nil
}

// withCondition returns a copy of pod with cond set, as kube's
// UpdatePodCondition sets it: lastTransitionTime moves only when the
// status changes, and nothing is written when nothing changed.
func withCondition(pod *corev1.Pod, cond corev1.PodCondition, now time.Time) (*corev1.Pod, bool) {
	for i, c := range pod.Status.Conditions {
		if c.Type != cond.Type {
			continue
		}
		cond.LastTransitionTime = c.LastTransitionTime
		if c.Status != cond.Status || c.LastTransitionTime.IsZero() {
			cond.LastTransitionTime = metav1.NewTime(now)
		}
		cond.LastProbeTime = c.LastProbeTime
		if c.Status == cond.Status && c.Reason == cond.Reason && c.Message == cond.Message && c.LastTransitionTime.Equal(&cond.LastTransitionTime) {
			return pod, false
		}
		p := pod.DeepCopy()
		p.Status.Conditions[i] = cond
		return p, true
	}
	cond.LastTransitionTime = metav1.NewTime(now)
	p := pod.DeepCopy()
	p.Status.Conditions = append(p.Status.Conditions, cond)
	return p, true
}

func truncate(msg string) string {
	if len(msg) <= eventNoteLimit {
		return msg
	}
	const suffix = " ..."
	return msg[:eventNoteLimit-len(suffix)] + suffix
}

// BindError is a binding the server did not take; the pod is retried.
type BindError struct {
	Pod, Node string
	Err       error
}

func (e *BindError) Error() string {
	return fmt.Sprintf("binding pod %s to node %s: %v", e.Pod, e.Node, e.Err)
}

func (e *BindError) Unwrap() error { return e.Err }
