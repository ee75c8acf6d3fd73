package main

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/apiserver/apiservertest"
	"github.com/setpoint-dev/setpoint/pkg/apiserver/credentials"
)

const waitTimeout = 30 * time.Second

// Two copies of the built example against one server: the first leads,
// the second follows it, and takes over when the first gets SIGTERM and
// releases the lease.
func TestSecondInstanceTakesOver(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example")
	}
	bin := filepath.Join(t.TempDir(), "leader")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	srv := apiservertest.Start(t)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := credentials.WriteKubeconfig(kubeconfig, srv.URL, srv.Credentials.CAPEM, srv.Credentials.AdminToken); err != nil {
		t.Fatal(err)
	}

	first := start(t, bin, kubeconfig, "first")
	first.waitFor(t, "leading as first")
	second := start(t, bin, kubeconfig, "second")
	second.waitFor(t, "new leader: first")

	if err := first.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	first.waitExit(t)
	if out := first.out.String(); !strings.Contains(out, "stopped leading") {
		t.Errorf("first's output lacks \"stopped leading\":\n%s", out)
	}
	second.waitFor(t, "leading as second")
	if err := second.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	second.waitExit(t)
	for _, p := range []*proc{first, second} {
		if strings.Contains(p.out.String(), "level=ERROR") {
			t.Errorf("%s logged an error:\n%s", p.name, p.out.String())
		}
	}
}

// proc is one running copy of the example.
type proc struct {
	name   string
	cmd    *exec.Cmd
	out    *syncBuffer
	exited chan struct{}
	err    error // cmd.Wait's; read after exited
}

func start(t *testing.T, bin, kubeconfig, id string) *proc {
	t.Helper()
	p := &proc{name: id, out: &syncBuffer{}, exited: make(chan struct{})}
	p.cmd = exec.Command(bin, "--kubeconfig", kubeconfig, "--id", id,
		"--lease-duration", "2s", "--renew-deadline", "1500ms", "--retry-period", "200ms")
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
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
			t.Logf("%s's output:\n%s", id, p.out.String())
		}
	})
	return p
}

func (p *proc) waitFor(t *testing.T, line string) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !strings.Contains(p.out.String(), line+"\n") {
		select {
		case <-p.exited:
			t.Fatalf("%s exited (%v) before printing %q", p.name, p.err, line)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not print %q", p.name, line)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (p *proc) waitExit(t *testing.T) {
	t.Helper()
	select {
	case <-p.exited:
	case <-time.After(waitTimeout):
		t.Fatalf("%s did not exit after the signal", p.name)
	}
	if p.err != nil {
		t.Errorf("%s: %v, want exit code 0", p.name, p.err)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
