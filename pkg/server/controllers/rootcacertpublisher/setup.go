package rootcacertpublisher

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
const ControllerName = "root-ca-cert-publisher"

// Options configure the controller.
type Options struct {
	// CA is the bundle to publish, PEM; required (BundleFrom reads the
	// one a client configuration trusts).
	CA []byte
	// Workers is how many namespaces are handled at once; 0 means 1, as
	// kube-controller-manager runs this controller.
	Workers int
}

// Setup adds the root CA certificate publisher to m. It fails with
// ErrNoCA when opts.CA holds no PEM certificate.
func Setup(m *manager.Manager, opts Options) error {
	if err := checkBundle(opts.CA); err != nil {
		return err
	}
	if opts.Workers <= 0 {
		opts.Workers = 1
	}
	r := &reconciler{cache: m.Client(), api: m.API(), ca: slices.Clone(opts.CA)}
	_, err := m.NewController(r, controller.Options{Name: ControllerName, Workers: opts.Workers},
		controller.For[*corev1.Namespace](controller.WithPredicates(active)),
		// Every event of the published ConfigMap, creations included: one
		// created by someone else before the controller got to it may
		// hold anything.
		controller.Watches[*corev1.ConfigMap](func(_ context.Context, cm *corev1.ConfigMap) []reconcile.Request {
			if cm.Name != ConfigMapName {
				return nil
			}
			return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: cm.Namespace}}}
		}),
	)
	return err
}

// active passes new namespaces and changes to active ones: a namespace
// being deleted needs nothing, and nor does one gone.
var active = predicate.Funcs[*corev1.Namespace]{
	UpdateFunc: func(_, ns *corev1.Namespace) bool { return ns.Status.Phase == corev1.NamespaceActive },
	DeleteFunc: func(*corev1.Namespace) bool { return false },
}
