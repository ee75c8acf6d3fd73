// Package processtest runs the binaries of this module as child
// processes for end-to-end tests: built with the go command, started and
// stopped with their output kept, `setpoint server` on a free port, and
// kubectl against it. A missing kubectl fails a test under CI (the CI
// environment variable set) and skips it elsewhere.
package processtest

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

const (
	// Timeout bounds a child's start (ready line) and stop, and the
	// waits below.
	Timeout = 30 * time.Second
	// kubectlTimeout bounds one kubectl command.
	kubectlTimeout = 30 * time.Second
)

// Build builds the module's packages pkgs ("./cmd/setpoint",
// "./examples/foo") into a temporary directory, from the module root,
// and returns the binaries' paths in the same order.
func Build(t *testing.T, pkgs ...string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	gomod, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	dir := t.TempDir()
	build := exec.CommandContext(ctx, "go", append([]string{"build", "-o", dir + string(filepath.Separator)}, pkgs...)...)
	build.Dir = filepath.Dir(strings.TrimSpace(string(gomod)))
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	paths := make([]string, len(pkgs))
	for i, p := range pkgs {
		paths[i] = filepath.Join(dir, filepath.Base(p))
	}
	return paths
}

// KubectlPath finds kubectl on PATH; without it the test fails under
// CI (the CI environment variable is set) and is skipped elsewhere.
func KubectlPath(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("kubectl")
	if err != nil {
		Missing(t, "kubectl", err)
	}
	return path
}

// Missing ends a test that cannot find a tool it runs: it fails under
// CI (the CI environment variable set), where every tool must be there,
// and is skipped elsewhere.
func Missing(t testing.TB, tool string, err error) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is required under CI: %v", tool, err)
	}
	t.Skipf("%s not found: %v", tool, err)
}

// FreeAddr is a loopback address whose port was free a moment ago.
func FreeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// Process is a running child: the server or the operator.
type Process struct {
	name   string
	cmd    *exec.Cmd
	out    *output
	exited chan struct{}
	err    error // cmd.Wait's; read after exited
}

// Start starts bin; the test's cleanup kills it if it still
// runs, and shows its output if the test failed.
func Start(t *testing.T, name, bin string, args ...string) *Process {
	t.Helper()
	p := &Process{name: name, out: &output{}, exited: make(chan struct{})}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	p.cmd.SysProcAttr = childProcAttr()
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.exited
		if t.Failed() {
			t.Logf("%s output:\n%s", name, p.out)
		}
	})
	return p
}

// WaitOutput waits until the child has printed s.
func (p *Process) WaitOutput(t *testing.T, s string) error {
	t.Helper()
	deadline := time.Now().Add(Timeout)
	for !strings.Contains(p.out.String(), s) {
		select {
		case <-p.exited:
			return fmt.Errorf("%s exited (%v) before printing %q", p.name, p.err, s)
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not print %q within %v", p.name, s, Timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

// Stop sends SIGTERM and fails the test unless the child exits with
// status 0 and logged no error.
func (p *Process) Stop(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("%s: %v", p.name, err)
	}
	select {
	case <-p.exited:
	case <-time.After(Timeout):
		t.Fatalf("%s did not exit within %v of SIGTERM", p.name, Timeout)
	}
	if p.err != nil {
		t.Errorf("%s: %v, want exit status 0", p.name, p.err)
	}
	if strings.Contains(p.out.String(), "level=ERROR") {
		t.Errorf("%s logged an error:\n%s", p.name, p.out)
	}
}

// StartServer runs `setpoint server` on the memory store and a free
// port, trying another port if the one picked was taken meanwhile, and
// returns it with its kubeconfig once it is ready.
func StartServer(t *testing.T, bin string) (*Process, string) {
	t.Helper()
	dataDir := t.TempDir()
	for attempt := 1; ; attempt++ {
		p := Start(t, "setpoint server", bin, "server", "--storage", "memory", "--data-dir", dataDir, "--listen", FreeAddr(t))
		err := p.WaitOutput(t, "setpoint API server ready")
		if err == nil {
			return p, filepath.Join(dataDir, "kubeconfig")
		}
		if attempt == 5 || !strings.Contains(p.out.String(), "address already in use") {
			t.Fatal(err)
		}
	}
}

// Pid is the child's process ID, for tests that watch what it holds.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Output is everything the child printed so far.
func (p *Process) Output() string { return p.out.String() }

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

// Kubectl runs kubectl against one server with a HOME of its own, so
// no discovery cache is shared with the user or another test.
type Kubectl struct {
	Bin, Kubeconfig, Home string
	// Timeout bounds each command; 0 means 30 seconds.
	Timeout time.Duration
}

// Run runs kubectl and returns its stdout, or an error with both
// streams.
func (k *Kubectl) Run(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	timeout := k.Timeout
	if timeout == 0 {
		timeout = kubectlTimeout
	}
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, k.Bin, append([]string{"--kubeconfig", k.Kubeconfig}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+k.Home, "KUBECONFIG=")
	cmd.Stdin = strings.NewReader(stdin)
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

// OK runs kubectl and fails the test unless it succeeds.
func (k *Kubectl) OK(t *testing.T, args ...string) string {
	t.Helper()
	out, err := k.Run(t, "", args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// WaitFor runs `kubectl get` with args until its output is want.
func (k *Kubectl) WaitFor(t *testing.T, want string, args ...string) {
	t.Helper()
	deadline := time.Now().Add(Timeout)
	for {
		out, err := k.Run(t, "", append([]string{"get"}, args...)...)
		if err == nil && out == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("kubectl get %s: got %q (%v), want %q", strings.Join(args, " "), out, err, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
