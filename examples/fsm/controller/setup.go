package controller

import (
	"log/slog"

	corev1 "k8s.io/api/core/v1"

	fsmv1 "github.com/setpoint-dev/setpoint/examples/fsm/api/v1"
	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/fsm"
	"github.com/setpoint-dev/setpoint/pkg/manager"
)

// Name names the controller in logs and metrics.
const Name = "pipeline"

// Finalizer holds a Pipeline until the deletion states are done.
const Finalizer = "fsm.example.com/cleanup"

// NewMachine returns the Pipeline state machine, reading and writing
// with c.
func NewMachine(c client.Interface, logger *slog.Logger) (*fsm.Machine[*fsmv1.Pipeline], error) {
	return fsm.New(fsm.Config[*fsmv1.Pipeline]{
		Client:         c,
		States:         states(c),
		DeletionStates: deletionStates(c),
		Finalizer:      Finalizer,
		Logger:         logger,
	})
}

// Setup adds the Pipeline controller to m: it walks a Pipeline's states
// when the Pipeline or its ConfigMap changes. m's client scheme must
// know Pipeline (fsmv1.AddToScheme).
func Setup(m *manager.Manager) error {
	machine, err := NewMachine(m.Client(), m.Logger())
	if err != nil {
		return err
	}
	_, err = m.NewController(machine, controller.Options{Name: Name},
		controller.For[*fsmv1.Pipeline](),
		controller.Owns[*corev1.ConfigMap](),
	)
	return err
}
