package pvcprotection

import (
	"context"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// reconciler adds or removes one claim's protection finalizer.
type reconciler struct {
	cache client.Reader // claims and pods, from informers
	live  client.Reader // pods, from the server
	api   *client.Client
}

func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	pvc := &corev1.PersistentVolumeClaim{}
	if err := r.cache.Get(ctx, req.NamespacedName, pvc); err != nil {
		if client.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	cached, err := r.pods(ctx, r.cache, pvc.Namespace)
	if err != nil {
		return reconcile.Result{}, err
	}
	switch Decide(pvc, cached) {
	case Check:
		live, err := r.pods(ctx, r.live, pvc.Namespace)
		if err != nil {
			return reconcile.Result{}, err
		}
		if InUse(pvc, live) {
			reconcile.Logger(ctx).DebugContext(ctx, "keeping pvc in use", "pvc", pvc.Name)
			return reconcile.Result{}, nil
		}
		next := pvc.DeepCopy()
		next.Finalizers = slices.DeleteFunc(next.Finalizers, func(f string) bool { return f == Finalizer })
		return reconcile.Result{}, r.write(ctx, next)
	case Add:
		next := pvc.DeepCopy()
		next.Finalizers = append(next.Finalizers, Finalizer)
		return reconcile.Result{}, r.write(ctx, next)
	}
	return reconcile.Result{}, nil
}

func (r *reconciler) write(ctx context.Context, pvc *corev1.PersistentVolumeClaim) error {
	if err := r.api.Update(ctx, pvc); err != nil && !client.IsNotFound(err) {
		return err
	}
	return nil
}

func (r *reconciler) pods(ctx context.Context, from client.Reader, ns string) ([]*corev1.Pod, error) {
	list := &corev1.PodList{}
	if err := from.List(ctx, list, client.InNamespace(ns)); err != nil {
		return nil, err
	}
	out := make([]*corev1.Pod, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return out, nil
}
