package rootcacertpublisher

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// reconciler publishes the bundle in one namespace.
type reconciler struct {
	cache client.Reader // namespaces and ConfigMaps, from informers
	api   client.Writer
	ca    []byte
}

func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	ns := &corev1.Namespace{}
	if err := r.cache.Get(ctx, types.NamespacedName{Name: req.Name}, ns); err != nil {
		if client.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	var current *corev1.ConfigMap
	cm := &corev1.ConfigMap{}
	switch err := r.cache.Get(ctx, types.NamespacedName{Namespace: ns.Name, Name: ConfigMapName}, cm); {
	case err == nil:
		current = cm
	case !client.IsNotFound(err):
		return reconcile.Result{}, err
	}
	action, next := Decide(ns, current, r.ca)
	var err error
	switch action {
	case Keep:
		return reconcile.Result{}, nil
	case Create:
		err = r.api.Create(ctx, next)
	case Update:
		err = r.api.Update(ctx, next)
	}
	switch {
	case err == nil:
		reconcile.Logger(ctx).DebugContext(ctx, "CA bundle published", "action", action)
	case ignorable(err):
	default:
		return reconcile.Result{}, fmt.Errorf("publishing the CA bundle (%v): %w", action, err)
	}
	return reconcile.Result{}, nil
}

// ignorable are the failures the informers will bring a new reason to
// look at: the ConfigMap created or changed by someone else since the
// cache saw it (its event follows), deleted meanwhile (likewise), or the
// namespace gone or terminating.
func ignorable(err error) bool {
	return client.IsAlreadyExists(err) || client.IsConflict(err) || client.IsNotFound(err) ||
		client.HasStatusCause(err, corev1.NamespaceTerminatingCause)
}
