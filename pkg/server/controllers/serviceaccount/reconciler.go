package serviceaccount

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// reconciler creates the accounts one namespace lacks.
type reconciler struct {
	cache client.Reader // namespaces and accounts, from informers
	api   client.Writer
	want  []string
}

func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	ns := &corev1.Namespace{}
	if err := r.cache.Get(ctx, types.NamespacedName{Name: req.Name}, ns); err != nil {
		if client.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	exists := make(map[string]bool, len(r.want))
	for _, name := range r.want {
		err := r.cache.Get(ctx, types.NamespacedName{Namespace: ns.Name, Name: name}, &corev1.ServiceAccount{})
		switch {
		case err == nil:
			exists[name] = true
		case !client.IsNotFound(err):
			return reconcile.Result{}, err
		}
	}
	var errs []error
	for _, name := range Missing(ns, r.want, exists) {
		err := r.api.Create(ctx, New(ns.Name, name))
		switch {
		case err == nil:
			reconcile.Logger(ctx).DebugContext(ctx, "service account created", "serviceAccount", name)
		case ignorable(err):
		default:
			errs = append(errs, fmt.Errorf("creating service account %s: %w", name, err))
		}
	}
	return reconcile.Result{}, errors.Join(errs...)
}

// ignorable: the account is there already (the cache was behind), or the
// namespace went or began terminating since the cache saw it Active.
func ignorable(err error) bool {
	return client.IsAlreadyExists(err) || client.IsNotFound(err) ||
		client.HasStatusCause(err, corev1.NamespaceTerminatingCause)
}
