package namespace

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/predicate"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/backoff"
)

// ControllerName names the controller in logs and metrics.
const ControllerName = "namespace"

// Setup adds the namespace controller to m. It reads namespaces from
// m's informers and everything else from the server: contents are listed
// metadata only, never cached.
func Setup(m *manager.Manager, opts Options) error {
	opts = opts.withDefaults()
	var api namespaceAPI = m.API()
	r := &reconciler{namespaces: m.Client(), api: api, backoff: backoff.New(opts.MinBackoff, opts.MaxBackoff)}
	_, err := m.NewController(r, controller.Options{Name: ControllerName, Workers: opts.Workers},
		controller.For[*corev1.Namespace](controller.WithPredicates(terminating)))
	return err
}

// terminating passes the namespaces being deleted, and deletions, which
// end a wait the controller keeps for the namespace.
var terminating = predicate.Funcs[client.Object]{
	CreateFunc: func(o client.Object) bool { return o.GetDeletionTimestamp() != nil },
	UpdateFunc: func(_, o client.Object) bool { return o.GetDeletionTimestamp() != nil },
}
