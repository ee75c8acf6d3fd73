package clusterroleaggregation

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// patcher is what writing an aggregate's rules needs of the server.
type patcher interface {
	Patch(ctx context.Context, obj client.Object, patchType types.PatchType, data []byte, opts ...client.WriteOption) error
}

// reconciler brings one aggregated ClusterRole's rules up to date.
type reconciler struct {
	cache client.Reader // ClusterRoles, from the informer
	// roles lists every ClusterRole from the informer without copying:
	// each change of any role re-reads all of them.
	roles func(context.Context) ([]*rbacv1.ClusterRole, error)
	api   patcher
}

func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	role := &rbacv1.ClusterRole{}
	if err := r.cache.Get(ctx, req.NamespacedName, role); err != nil {
		if client.IsNotFound(err) {
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	if role.AggregationRule == nil {
		return reconcile.Result{}, nil
	}
	all, err := r.roles(ctx)
	if err != nil {
		return reconcile.Result{}, err
	}
	rules, err := aggregate(role, all)
	if err != nil {
		return reconcile.Result{}, reconcile.TerminalError(fmt.Errorf("aggregating clusterrole %s: %w", role.Name, err))
	}
	// Semantic equality takes an empty list for a missing one, so a
	// role that gathers nothing and has no rules is left alone.
	if equality.Semantic.DeepEqual(rules, role.Rules) {
		return reconcile.Result{}, nil
	}
	body, err := applyBody(role.Name, rules)
	if err != nil {
		return reconcile.Result{}, err
	}
	out := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: role.Name}}
	if err := r.api.Patch(ctx, out, types.ApplyPatchType, body, client.FieldManager(FieldManager), client.ForceOwnership); err != nil {
		return reconcile.Result{}, fmt.Errorf("applying the rules of clusterrole %s: %w", role.Name, err)
	}
	reconcile.Logger(ctx).DebugContext(ctx, "aggregated rules written", "rules", len(rules))
	return reconcile.Result{}, nil
}
