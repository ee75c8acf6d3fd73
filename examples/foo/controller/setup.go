package controller

import (
	corev1 "k8s.io/api/core/v1"

	foov1 "github.com/setpoint-dev/setpoint/examples/foo/api/v1"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/manager"
)

// Name names the controller in logs and metrics.
const Name = "foo"

// Setup adds the Foo controller to m: it reconciles a Foo when the Foo
// or its ConfigMap changes. m's client scheme must know Foo
// (foov1.AddToScheme).
func Setup(m *manager.Manager, r *Reconciler) error {
	if r.Client == nil {
		r.Client = m.Client()
	}
	if r.Logger == nil {
		r.Logger = m.Logger()
	}
	_, err := m.NewController(r, controller.Options{Name: Name},
		controller.For[*foov1.Foo](),
		controller.Owns[*corev1.ConfigMap](),
	)
	return err
}
