package crdcleanup

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/predicate"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/backoff"
)

// ControllerName names the controller in logs and metrics.
const ControllerName = "crd-cleanup"

// Setup adds the CRD cleanup controller to m. It reads CRDs from m's
// informers and custom resources from the server, metadata only, never
// cached.
func Setup(m *manager.Manager, opts Options) error {
	opts = opts.withDefaults()
	var api crdAPI = m.API()
	r := &reconciler{crds: m.Client(), api: api, backoff: backoff.New(opts.MinBackoff, opts.MaxBackoff)}
	_, err := m.NewController(r, controller.Options{Name: ControllerName, Workers: opts.Workers},
		controller.For[*apiextensionsv1.CustomResourceDefinition](controller.WithPredicates(deleting)))
	return err
}

// deleting passes the CRDs being deleted, and deletions, which end a
// wait the controller keeps for the CRD.
var deleting = predicate.Funcs[client.Object]{
	CreateFunc: func(o client.Object) bool { return o.GetDeletionTimestamp() != nil },
	UpdateFunc: func(_, o client.Object) bool { return o.GetDeletionTimestamp() != nil },
}
