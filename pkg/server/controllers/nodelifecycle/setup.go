package nodelifecycle

import (
	"context"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/reconcile"
)

// ControllerName names the controller in logs and metrics.
const ControllerName = "node-lifecycle"

// Options configure the controller. The zero value is ready to use.
type Options struct {
	// GracePeriod is how long a node may go without a heartbeat before
	// its conditions turn Unknown; 0 means DefaultGracePeriod.
	GracePeriod time.Duration
	// Clock tells the time; nil is the real clock.
	Clock clock.Clock
}

// Setup adds the node lifecycle controller to m.
func Setup(m *manager.Manager, opts Options) error {
	if opts.GracePeriod <= 0 {
		opts.GracePeriod = DefaultGracePeriod
	}
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	r := &reconciler{cache: m.Client(), api: m.API(), clock: opts.Clock, grace: opts.GracePeriod}
	_, err := m.NewController(r, controller.Options{Name: ControllerName, Workers: 2, Clock: opts.Clock},
		controller.For[*corev1.Node](),
		controller.Watches[*coordinationv1.Lease](func(_ context.Context, l *coordinationv1.Lease) []reconcile.Request {
			if l.Namespace != corev1.NamespaceNodeLease {
				return nil
			}
			return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: l.Name}}}
		}),
	)
	return err
}
