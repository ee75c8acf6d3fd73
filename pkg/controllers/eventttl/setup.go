package eventttl

import (
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/predicate"
)

// Controller names, in logs and metrics.
const (
	CoreControllerName   = "event-ttl"
	EventsControllerName = "event-ttl-events.k8s.io"
)

// Setup adds the Event TTL controllers to m, one for core/v1 Events and
// one for events.k8s.io/v1 Events, each reading its Events from m's
// informers.
func Setup(m *manager.Manager, opts Options) error {
	opts = opts.withDefaults()
	var api deleter = m.API()
	copts := func(name string) controller.Options {
		return controller.Options{Name: name, Workers: opts.Workers, Clock: opts.Clock}
	}
	core := &reconciler[*corev1.Event]{
		events: m.Client(), api: api, ttl: opts.TTL, clock: opts.Clock,
		newEvent: func() *corev1.Event { return &corev1.Event{} }, lastWrite: coreLastWrite,
	}
	if _, err := m.NewController(core, copts(CoreControllerName), controller.For[*corev1.Event](controller.WithPredicates(written))); err != nil {
		return err
	}
	events := &reconciler[*eventsv1.Event]{
		events: m.Client(), api: api, ttl: opts.TTL, clock: opts.Clock,
		newEvent: func() *eventsv1.Event { return &eventsv1.Event{} }, lastWrite: eventsLastWrite,
	}
	_, err := m.NewController(events, copts(EventsControllerName), controller.For[*eventsv1.Event](controller.WithPredicates(written)))
	return err
}

// written passes creates and updates, each of which sets an Event's
// expiry; a deleted Event needs nothing.
var written = predicate.Funcs[client.Object]{
	DeleteFunc: func(client.Object) bool { return false },
}
