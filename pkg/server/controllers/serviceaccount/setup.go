package serviceaccount

import (
	"context"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/predicate"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// ControllerName names the controller in logs and metrics.
const ControllerName = "serviceaccount"

// Options configure the controller. The zero value is ready to use.
type Options struct {
	// ServiceAccounts names the accounts every active namespace gets;
	// empty means DefaultName alone, as in kube-controller-manager.
	ServiceAccounts []string
	// Workers is how many namespaces are handled at once; 0 means 1, as
	// kube-controller-manager runs this controller.
	Workers int
}

// Setup adds the service account controller to m.
func Setup(m *manager.Manager, opts Options) error {
	if len(opts.ServiceAccounts) == 0 {
		opts.ServiceAccounts = []string{DefaultName}
	}
	if opts.Workers <= 0 {
		opts.Workers = 1
	}
	want := slices.Clone(opts.ServiceAccounts)
	r := &reconciler{cache: m.Client(), api: m.API(), want: want}
	_, err := m.NewController(r, controller.Options{Name: ControllerName, Workers: opts.Workers},
		controller.For[*corev1.Namespace](controller.WithPredicates(active)),
		controller.Watches[*corev1.ServiceAccount](func(_ context.Context, sa *corev1.ServiceAccount) []reconcile.Request {
			if !slices.Contains(want, sa.Name) {
				return nil
			}
			return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: sa.Namespace}}}
		}, controller.WithPredicates(deleted)),
	)
	return err
}

// active passes new namespaces and changes to active ones: a namespace
// being deleted needs nothing, and nor does one gone.
var active = predicate.Funcs[*corev1.Namespace]{
	UpdateFunc: func(_, ns *corev1.Namespace) bool { return ns.Status.Phase == corev1.NamespaceActive },
	DeleteFunc: func(*corev1.Namespace) bool { return false },
}

// deleted passes only deletions: an account that exists needs nothing.
var deleted = predicate.Funcs[*corev1.ServiceAccount]{
	CreateFunc: func(*corev1.ServiceAccount) bool { return false },
	UpdateFunc: func(_, _ *corev1.ServiceAccount) bool { return false },
}
