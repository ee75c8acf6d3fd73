package clusterroleaggregation

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/predicate"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/listers"
)

// ControllerName names the controller in logs and metrics.
const ControllerName = "clusterrole-aggregation"

// Options configure the controller. The zero value is ready to use.
type Options struct {
	// Workers is how many aggregated roles are handled at once; 0 means
	// 5, as kube-controller-manager runs this controller.
	Workers int
}

// Setup adds the ClusterRole aggregation controller to m. It reads
// ClusterRoles from m's informers.
func Setup(m *manager.Manager, opts Options) error {
	if opts.Workers <= 0 {
		opts.Workers = 5
	}
	roles := func(ctx context.Context) ([]*rbacv1.ClusterRole, error) {
		return listers.List[*rbacv1.ClusterRole](ctx, m, "", nil)
	}
	r := &reconciler{cache: m.Client(), roles: roles, api: m.API()}
	_, err := m.NewController(r, controller.Options{Name: ControllerName, Workers: opts.Workers},
		// An aggregate's own change (its selectors) re-evaluates it ...
		controller.For[*rbacv1.ClusterRole](controller.WithPredicates(aggregating)),
		// ... and any role's change every other aggregate: which roles a
		// change concerns is not worth working out, there are few
		// aggregates, and an aggregate is itself matched by others.
		controller.Watches[*rbacv1.ClusterRole](func(ctx context.Context, changed *rbacv1.ClusterRole) []reconcile.Request {
			return aggregates(ctx, roles, changed.Name)
		}),
	)
	return err
}

// aggregating passes creates and updates of roles with an
// aggregationRule; a deleted role needs nothing of its own.
var aggregating = predicate.Funcs[*rbacv1.ClusterRole]{
	CreateFunc: func(r *rbacv1.ClusterRole) bool { return r.AggregationRule != nil },
	UpdateFunc: func(_, r *rbacv1.ClusterRole) bool { return r.AggregationRule != nil },
	DeleteFunc: func(*rbacv1.ClusterRole) bool { return false },
}

// aggregates are the requests for every role with an aggregationRule
// but the one named except.
func aggregates(ctx context.Context, roles func(context.Context) ([]*rbacv1.ClusterRole, error), except string) []reconcile.Request {
	all, err := roles(ctx)
	if err != nil {
		// Only when the controller stops: the informer feeding this is
		// the one listed.
		return nil
	}
	var out []reconcile.Request
	for _, r := range all {
		if r.AggregationRule != nil && r.Name != except {
			out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Name: r.Name}})
		}
	}
	return out
}
