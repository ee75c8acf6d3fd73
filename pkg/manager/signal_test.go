package manager

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestSignalContext runs this test binary as a child whose drain hangs:
// the first SIGTERM ends its context, the second exits it with status 1.
func TestSignalContext(t *testing.T) {
	if os.Getenv("SETPOINT_SIGNAL_CHILD") == "1" {
		ctx := SignalContext()
		fmt.Println("ready")
		<-ctx.Done()
		fmt.Println("draining")
		select {} // a drain that never ends
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSignalContext$")
	cmd.Env = append(os.Environ(), "SETPOINT_SIGNAL_CHILD=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	expect := func(want string) {
		t.Helper()
		for lines.Scan() {
			if lines.Text() == want {
				return
			}
		}
		t.Fatalf("the child never printed %q", want)
	}
	expect("ready")
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	expect("draining")
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 {
			t.Errorf("child ended with %v, want exit status 1", err)
		}
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the second signal did not end the child")
	}
}
