package controller_test

import (
	"slices"
	"testing"

	"k8s.io/client-go/rest"

	pipelinecontroller "github.com/setpoint-dev/setpoint/examples/fsm/controller"
	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/fsm"
)

// TestTransitions pins the state graph the package documents.
func TestTransitions(t *testing.T) {
	// The client is never used: building a machine talks to no server.
	c, err := client.New(&rest.Config{Host: "https://127.0.0.1:1"}, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := pipelinecontroller.NewMachine(c, quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	want := []fsm.Transition{
		{From: pipelinecontroller.StateValidated, To: pipelinecontroller.StateProvisioned},
		{From: pipelinecontroller.StateProvisioned, To: pipelinecontroller.StatePublished},
		{From: pipelinecontroller.StateUnpublished, To: pipelinecontroller.StateDeprovisioned},
	}
	if got := m.Transitions(); !slices.Equal(got, want) {
		t.Errorf("Transitions() = %v, want %v", got, want)
	}
}
