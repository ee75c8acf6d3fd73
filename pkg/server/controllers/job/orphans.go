package job

import (
	"context"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// orphans release the tracking finalizer of pods no running Job will
// count: orphans (the garbage collector took their controller reference
// away, or they never had one) and pods of a Job that is gone or has
// ended. Without this a deleted Job's pods would never go.
type orphans struct {
	cache client.Reader
	api   *client.Client
}

func (o *orphans) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	pod := &corev1.Pod{}
	if err := o.cache.Get(ctx, req.NamespacedName, pod); err != nil {
		if client.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	if !hasTrackingFinalizer(pod) {
		return reconcile.Result{}, nil
	}
	if ref := metav1.GetControllerOfNoCopy(pod); ref != nil {
		if ref.Kind != "Job" || ref.APIVersion != batchv1.SchemeGroupVersion.String() {
			// Not ours to touch.
			return reconcile.Result{}, nil
		}
		job := &batchv1.Job{}
		err := o.cache.Get(ctx, types.NamespacedName{Namespace: pod.Namespace, Name: ref.Name}, job)
		switch {
		case err == nil && job.UID == ref.UID:
			if managedElsewhere(job) || !Finished(job) {
				return reconcile.Result{}, nil
			}
		case err != nil && !client.IsNotFound(err):
			return reconcile.Result{}, err
		}
	}
	r := &reconciler{api: o.api}
	if err := r.releaseFinalizer(ctx, pod); err != nil && !client.IsNotFound(err) {
		return reconcile.Result{}, err
	}
	return reconcile.Result{}, nil
}

// podsToRelease are, for a Job that has ended or is gone (a delete
// event carries its last state), its selected pods still tracked.
func podsToRelease(ctx context.Context, c client.Reader, job *batchv1.Job) []reconcile.Request {
	live := &batchv1.Job{}
	err := c.Get(ctx, types.NamespacedName{Namespace: job.Namespace, Name: job.Name}, live)
	if err == nil && live.UID == job.UID && !Finished(live) {
		return nil
	}
	sel, err := metav1.LabelSelectorAsSelector(job.Spec.Selector)
	if err != nil {
		return nil
	}
	list := &corev1.PodList{}
	if err := c.List(ctx, list, client.InNamespace(job.Namespace), client.LabelSelector(sel.String())); err != nil {
		return nil
	}
	var out []reconcile.Request
	for i := range list.Items {
		if hasTrackingFinalizer(&list.Items[i]) {
			out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: job.Namespace, Name: list.Items[i].Name}})
		}
	}
	return out
}
