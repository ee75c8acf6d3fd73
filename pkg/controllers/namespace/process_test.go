package namespace

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The end-to-end test's plumbing: the setpoint binary, built with the
// go command and run as a child, and kubectl.

// processTimeout bounds the server's start and stop.
const processTimeout = 30 * time.Second

// buildSetpoint builds ./cmd/setpoint into a temporary directory.
func buildSetpoint(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	gomod, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "setpoint")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/setpoint")
	build.Dir = filepath.Dir(strings.TrimSpace(string(gomod)))
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// kubectlPath finds kubectl on PATH; without it the test fails under
// CI (CI=true) and is skipped elsewhere.
func kubectlPath(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("kubectl")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("kubectl is required under CI: %v", err)
		}
		t.Skipf("kubectl not found: %v", err)
	}
	return path
}

// server is a running `setpoint server`.
type server struct {
	cmd    *exec.Cmd
	out    *output
	exited chan struct{}
	err    error // cmd.Wait's; read after exited
}

// startSetpoint runs `setpoint server` on the memory store and a free
// loopback port (another one if that was taken meanwhile) and returns
// it with its kubeconfig once it is ready. The test's cleanup kills it
// if it still runs and shows its output if the test failed.
func startSetpoint(t *testing.T, bin string) (*server, string) {
	t.Helper()
	dataDir := t.TempDir()
	for attempt := 1; ; attempt++ {
		s := &server{out: &output{}, exited: make(chan struct{})}
		s.cmd = exec.Command(bin, "server", "--storage", "memory", "--data-dir", dataDir, "--listen", freeAddr(t))
		s.cmd.Stdout, s.cmd.Stderr = s.out, s.out
		s.cmd.SysProcAttr = childProcAttr()
		if err := s.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() {
			s.err = s.cmd.Wait()
			close(s.exited)
		}()
		t.Cleanup(func() {
			_ = s.cmd.Process.Kill()
			<-s.exited
			if t.Failed() {
				t.Logf("setpoint server output:\n%s", s.out)
			}
		})
		err := s.waitOutput("setpoint API server ready")
		if err == nil {
			return s, filepath.Join(dataDir, "kubeconfig")
		}
		if attempt == 5 || !strings.Contains(s.out.String(), "address already in use") {
			t.Fatal(err)
		}
	}
}

func (s *server) waitOutput(want string) error {
	deadline := time.Now().Add(processTimeout)
	for !strings.Contains(s.out.String(), want) {
		select {
		case <-s.exited:
			return fmt.Errorf("setpoint server exited (%v) before printing %q", s.err, want)
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("setpoint server did not print %q within %v", want, processTimeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

// stop sends SIGTERM and fails the test unless the server exits with
// status 0 and logged no error.
func (s *server) stop(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.exited:
	case <-time.After(processTimeout):
		t.Fatalf("setpoint server did not exit within %v of SIGTERM", processTimeout)
	}
	if s.err != nil {
		t.Errorf("setpoint server: %v, want exit status 0", s.err)
	}
	if strings.Contains(s.out.String(), "level=ERROR") {
		t.Errorf("setpoint server logged an error:\n%s", s.out)
	}
}

// freeAddr is a loopback address whose port was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// output collects a child's stdout and stderr.
type output struct {
	mu sync.Mutex
	b  strings.Builder
}

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.Write(p)
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}

// kubectl runs kubectl against kubeconfig with a HOME of its own, so no
// discovery cache is shared with the user or another test, and returns
// its stdout, or an error carrying both streams.
func kubectl(t *testing.T, bin, kubeconfig string, timeout time.Duration, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"--kubeconfig", kubeconfig}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "KUBECONFIG=")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) && ctx.Err() != nil {
			err = fmt.Errorf("%w (timed out)", err)
		}
		return stdout.String(), fmt.Errorf("kubectl %s: %w\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String(), nil
}
