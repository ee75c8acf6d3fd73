package eventttl

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/predicate"
)

// ControllerName names the controller in logs and metrics.
const ControllerName = "event-ttl"

// Setup adds the Event TTL controller to m. It reads core/v1 Events from
// m's informers: events.k8s.io/v1 Events are the same objects, so those
// expire too.
func Setup(m *manager.Manager, opts Options) error {
	opts = opts.withDefaults()
	r := &reconciler{events: m.Client(), api: m.API(), ttl: opts.TTL, clock: opts.Clock}
	copts := controller.Options{Name: ControllerName, Workers: opts.Workers, Clock: opts.Clock}
	_, err := m.NewController(r, copts, controller.For[*corev1.Event](controller.WithPredicates(written)))
	return err
}

// written passes creates and updates, each of which sets an Event's
// expiry; a deleted Event needs nothing.
var written = predicate.Funcs[client.Object]{
	DeleteFunc: func(client.Object) bool { return false },
}
