package namespace

import (
	"context"
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/backoff"
)

// namespaceAPI is what the reconciler needs of the server: the content
// calls, and the two namespace writes.
type namespaceAPI interface {
	contentAPI
	UpdateStatus(ctx context.Context, obj client.Object, opts ...client.WriteOption) error
	UpdateSubresource(ctx context.Context, obj client.Object, subresource string, opts ...client.WriteOption) error
}

// reconciler finishes the deletion of the namespace each request names.
type reconciler struct {
	namespaces client.Reader // the informer's copy
	api        namespaceAPI
	backoff    *backoff.Backoff
}

func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	ns := &corev1.Namespace{}
	if err := r.namespaces.Get(ctx, req.NamespacedName, ns); err != nil {
		if client.IsNotFound(err) {
			r.backoff.Forget(req.Name)
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	if ns.DeletionTimestamp == nil || !slices.Contains(ns.Spec.Finalizers, corev1.FinalizerKubernetes) {
		r.backoff.Forget(req.Name)
		return reconcile.Result{}, nil
	}

	out := deleteContent(ctx, r.api, ns.Name)
	if err := ctx.Err(); err != nil {
		return reconcile.Result{}, err
	}
	if err := r.report(ctx, ns, out); err != nil {
		return reconcile.Result{}, err
	}
	switch {
	case out.discoveryErr != nil:
		return reconcile.Result{}, fmt.Errorf("discovering the kinds to delete: %w", out.discoveryErr)
	case len(out.deleteErrs) > 0:
		return reconcile.Result{}, fmt.Errorf("deleting the namespace's content: %w", errors.Join(out.deleteErrs...))
	case out.total() > 0:
		wait := r.backoff.Next(ns.Name, ns.UID, out.total())
		reconcile.Logger(ctx).DebugContext(ctx, "namespace content remains", "remaining", out.total(), "retryIn", wait)
		return reconcile.Result{RequeueAfter: wait}, nil
	}

	r.backoff.Forget(ns.Name)
	ns.Spec.Finalizers = slices.DeleteFunc(ns.Spec.Finalizers, func(f corev1.FinalizerName) bool { return f == corev1.FinalizerKubernetes })
	if err := r.api.UpdateSubresource(ctx, ns, "finalize"); err != nil {
		if client.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, fmt.Errorf("releasing the namespace's finalizer: %w", err)
	}
	reconcile.Logger(ctx).InfoContext(ctx, "namespace content deleted, finalizer released")
	return reconcile.Result{}, nil
}

// report writes the pass's outcome into the namespace's status: the
// deletion conditions, and phase Terminating should the server not have
// set it. Nothing is written when nothing changed, so a namespace that
// waits costs no writes (and so no events that would end the wait early).
func (r *reconciler) report(ctx context.Context, ns *corev1.Namespace, out *outcome) error {
	changed := setConditions(&ns.Status, out.failures(), metav1.Now())
	if ns.Status.Phase != corev1.NamespaceTerminating {
		ns.Status.Phase = corev1.NamespaceTerminating
		changed = true
	}
	if !changed {
		return nil
	}
	if err := r.api.UpdateStatus(ctx, ns); err != nil && !client.IsNotFound(err) {
		return fmt.Errorf("updating the namespace's conditions: %w", err)
	}
	return nil
}
