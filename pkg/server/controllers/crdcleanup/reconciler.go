package crdcleanup

import (
	"context"
	"fmt"
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/backoff"
)

// crdAPI is what the reconciler needs of the server: the instance
// calls, and the CRD's two writes.
type crdAPI interface {
	instancesAPI
	Update(ctx context.Context, obj client.Object, opts ...client.WriteOption) error
	UpdateStatus(ctx context.Context, obj client.Object, opts ...client.WriteOption) error
}

// reconciler finishes the deletion of the CRD each request names.
type reconciler struct {
	crds    client.Reader // the informer's copy
	api     crdAPI
	backoff *backoff.Backoff
}

func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := r.crds.Get(ctx, req.NamespacedName, crd); err != nil {
		if client.IsNotFound(err) {
			r.backoff.Forget(req.Name)
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	if crd.DeletionTimestamp == nil || !slices.Contains(crd.Finalizers, apiextensionsv1.CustomResourceCleanupFinalizer) {
		r.backoff.Forget(req.Name)
		return reconcile.Result{}, nil
	}
	if !isTrue(crd, apiextensionsv1.Established) {
		// Never served, so no object of its kind can exist.
		if err := r.setStatus(ctx, crd, terminating(apiextensionsv1.ConditionFalse, ReasonNeverEstablished, msgNeverEstablished)); err != nil {
			return reconcile.Result{}, err
		}
		return reconcile.Result{}, r.release(ctx, crd)
	}
	// Say so before the deletes, which may take a while.
	if !isTrue(crd, apiextensionsv1.Terminating) {
		if err := r.setStatus(ctx, crd, terminating(apiextensionsv1.ConditionTrue, ReasonInstanceDeletionInProgress, msgInProgress)); err != nil {
			return reconcile.Result{}, err
		}
	}

	remaining, err := deleteInstances(ctx, r.api, kindOf(crd), crd.Spec.Scope == apiextensionsv1.NamespaceScoped)
	if err != nil {
		if ctx.Err() != nil {
			return reconcile.Result{}, ctx.Err()
		}
		failed := terminating(apiextensionsv1.ConditionTrue, ReasonInstanceDeletionFailed, fmt.Sprintf("could not issue all deletes: %v", err))
		if serr := r.setStatus(ctx, crd, failed); serr != nil {
			return reconcile.Result{}, serr
		}
		return reconcile.Result{}, fmt.Errorf("deleting the custom resources: %w", err)
	}
	if remaining > 0 {
		if err := r.setStatus(ctx, crd, terminating(apiextensionsv1.ConditionTrue, ReasonInstanceDeletionInProgress, msgInProgress)); err != nil {
			return reconcile.Result{}, err
		}
		wait := r.backoff.Next(crd.Name, crd.UID, remaining)
		reconcile.Logger(ctx).DebugContext(ctx, "custom resources remain", "remaining", remaining, "retryIn", wait)
		return reconcile.Result{RequeueAfter: wait}, nil
	}
	r.backoff.Forget(crd.Name)
	if err := r.setStatus(ctx, crd, terminating(apiextensionsv1.ConditionFalse, ReasonInstanceDeletionCompleted, msgCompleted)); err != nil {
		return reconcile.Result{}, err
	}
	if err := r.release(ctx, crd); err != nil {
		return reconcile.Result{}, err
	}
	reconcile.Logger(ctx).InfoContext(ctx, "custom resources deleted, finalizer released")
	return reconcile.Result{}, nil
}

// setStatus writes cond into the CRD's status, if that changes it; crd
// then holds the server's copy.
func (r *reconciler) setStatus(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition, cond apiextensionsv1.CustomResourceDefinitionCondition) error {
	if !setCondition(crd, cond, metav1.Now()) {
		return nil
	}
	if err := r.api.UpdateStatus(ctx, crd); err != nil {
		return fmt.Errorf("updating the CRD's Terminating condition: %w", err)
	}
	return nil
}

// release removes the cleanup finalizer; the server deletes the CRD
// once no finalizer is left. The write carries the resourceVersion
// read, so it cannot undo a concurrent change.
func (r *reconciler) release(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) error {
	crd.Finalizers = slices.DeleteFunc(crd.Finalizers, func(f string) bool { return f == apiextensionsv1.CustomResourceCleanupFinalizer })
	if err := r.api.Update(ctx, crd); err != nil && !client.IsNotFound(err) {
		return fmt.Errorf("removing the CRD's cleanup finalizer: %w", err)
	}
	return nil
}
