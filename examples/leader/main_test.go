package main

import (
	"strings"
	"testing"

	"github.com/setpoint-dev/setpoint/internal/processtest"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
)

// Two copies of the built example against one server: the first leads,
// the second follows it, and takes over when the first gets SIGTERM and
// releases the lease. Each must exit 0 without logging an error.
func TestSecondInstanceTakesOver(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example")
	}
	bin := processtest.Build(t, "./examples/leader")[0]
	kubeconfig := envtest.Start(t, envtest.WithoutControllers()).Kubeconfig(t)
	start := func(id string) *processtest.Process {
		return processtest.Start(t, id, bin, "--kubeconfig", kubeconfig, "--id", id,
			"--lease-duration", "2s", "--renew-deadline", "1500ms", "--retry-period", "200ms")
	}
	waitFor := func(p *processtest.Process, line string) {
		t.Helper()
		if err := p.WaitOutput(t, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}

	first := start("first")
	waitFor(first, "leading as first")
	second := start("second")
	waitFor(second, "new leader: first")

	first.Stop(t)
	if out := first.Output(); !strings.Contains(out, "stopped leading") {
		t.Errorf("first's output lacks \"stopped leading\":\n%s", out)
	}
	waitFor(second, "leading as second")
	second.Stop(t)
}
