// Package etcdtest runs real etcd servers for tests: single members and
// clusters on loopback ports they pick, each with its own data directory.
// The binary is $SETPOINT_ETCD or etcd on PATH (hack/test builds one from
// the Go module proxy and sets the variable); without it a test fails
// under CI (the CI environment variable set) and is skipped elsewhere.
package etcdtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/setpoint-dev/setpoint/internal/processtest"
)

// startTimeout bounds how long a member may take to serve.
const startTimeout = 30 * time.Second

// Binary returns the etcd binary's path.
func Binary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("SETPOINT_ETCD"); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("SETPOINT_ETCD: %v", err)
		}
		return p
	}
	p, err := exec.LookPath("etcd")
	if err != nil {
		processtest.Missing(t, "etcd (hack/test builds it and sets SETPOINT_ETCD)", err)
	}
	return p
}

// Member is one etcd process.
type Member struct {
	Name      string
	ClientURL string
	PeerURL   string
	DataDir   string

	bin     string
	cluster string // --initial-cluster
	cmd     *exec.Cmd
	exited  chan struct{}
	logPath string
}

// Cluster is a set of members started together.
type Cluster struct {
	Members []*Member
}

// Endpoints are the members' client URLs.
func (c *Cluster) Endpoints() []string {
	eps := make([]string, len(c.Members))
	for i, m := range c.Members {
		eps[i] = m.ClientURL
	}
	return eps
}

// Start runs a cluster of n members in new data directories and waits
// until it serves. The members stop when the test ends. A free port can
// be taken by another process before etcd binds it; the cluster then
// starts again on other ports, up to three times.
func Start(t testing.TB, n int) *Cluster {
	t.Helper()
	bin := Binary(t)
	dir := t.TempDir()
	for attempt := 1; ; attempt++ {
		c, err := start(t, bin, filepath.Join(dir, fmt.Sprint(attempt)), n)
		if err == nil {
			for _, m := range c.Members {
				t.Cleanup(func() { m.Stop() })
			}
			return c
		}
		if attempt == 3 || !errors.Is(err, errPortTaken) {
			t.Fatal(err)
		}
		t.Logf("etcdtest: %v; starting the cluster again on other ports", err)
	}
}

// start starts a cluster of n members under dir; on an error it stops
// the members it started.
func start(t testing.TB, bin, dir string, n int) (*Cluster, error) {
	c := &Cluster{}
	var peers []string
	for i := range n {
		m := &Member{
			Name:      fmt.Sprintf("m%d", i),
			ClientURL: "http://" + processtest.FreeAddr(t),
			PeerURL:   "http://" + processtest.FreeAddr(t),
			DataDir:   filepath.Join(dir, fmt.Sprintf("m%d", i)),
			bin:       bin,
		}
		m.logPath = m.DataDir + ".log"
		peers = append(peers, m.Name+"="+m.PeerURL)
		c.Members = append(c.Members, m)
	}
	err := func() error {
		for _, m := range c.Members {
			m.cluster = strings.Join(peers, ",")
			if err := m.start(); err != nil {
				return err
			}
		}
		for _, m := range c.Members {
			if err := m.waitReady(); err != nil {
				return err
			}
		}
		return nil
	}()
	if err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// Stop stops every member.
func (c *Cluster) Stop() {
	for _, m := range c.Members {
		m.Stop()
	}
}

// Restart starts every stopped member again and waits until the cluster
// serves. Members of a cluster that lost its quorum serve only once
// enough of the others are back, so they start together.
func (c *Cluster) Restart(t testing.TB) {
	t.Helper()
	for _, m := range c.Members {
		if m.cmd == nil {
			if err := m.start(); err != nil {
				t.Fatal(err)
			}
		}
	}
	c.WaitReady(t)
}

// WaitReady waits until every running member answers a linearizable read.
func (c *Cluster) WaitReady(t testing.TB) {
	t.Helper()
	for _, m := range c.Members {
		if m.cmd == nil {
			continue
		}
		if err := m.waitReady(); err != nil {
			t.Fatal(err)
		}
	}
}

// errPortTaken is a member that could not bind a port picked for it.
var errPortTaken = errors.New("a port picked for it was taken before it started")

func (m *Member) start() error {
	if err := os.MkdirAll(filepath.Dir(m.DataDir), 0o700); err != nil {
		return err
	}
	state := "new"
	if _, err := os.Stat(filepath.Join(m.DataDir, "member")); err == nil {
		state = "existing"
	}
	log, err := os.OpenFile(m.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer log.Close()
	m.cmd = exec.Command(m.bin,
		"--name", m.Name,
		"--data-dir", m.DataDir,
		"--listen-client-urls", m.ClientURL,
		"--advertise-client-urls", m.ClientURL,
		"--listen-peer-urls", m.PeerURL,
		"--initial-advertise-peer-urls", m.PeerURL,
		"--initial-cluster", m.cluster,
		"--initial-cluster-state", state,
		"--initial-cluster-token", "setpoint-test",
		"--log-level", "warn",
	)
	m.cmd.Stdout, m.cmd.Stderr = log, log
	if err := m.cmd.Start(); err != nil {
		return fmt.Errorf("etcd: start %s: %w", m.Name, err)
	}
	m.exited = make(chan struct{})
	go func(cmd *exec.Cmd, exited chan struct{}) {
		cmd.Wait()
		close(exited)
	}(m.cmd, m.exited)
	return nil
}

func (m *Member) waitReady() error {
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{m.ClientURL}, DialTimeout: time.Second, Logger: zap.NewNop()})
	if err != nil {
		return err
	}
	defer cli.Close()
	deadline := time.Now().Add(startTimeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := cli.Get(ctx, "/health-probe")
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-m.exited:
			out, _ := os.ReadFile(m.logPath)
			if bytes.Contains(out, []byte("address already in use")) {
				return fmt.Errorf("etcd %s: %w", m.Name, errPortTaken)
			}
			return fmt.Errorf("etcd %s exited while starting:\n%s", m.Name, out)
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("etcd %s not ready after %v: %v", m.Name, startTimeout, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop ends the member gracefully; it may be started again.
func (m *Member) Stop() {
	m.signal(syscall.SIGTERM)
}

// Kill ends the member with SIGKILL; it may be started again.
func (m *Member) Kill() {
	m.signal(syscall.SIGKILL)
}

func (m *Member) signal(sig syscall.Signal) {
	if m.cmd == nil {
		return
	}
	m.cmd.Process.Signal(sig)
	select {
	case <-m.exited:
	case <-time.After(startTimeout):
		m.cmd.Process.Kill()
		<-m.exited
	}
	m.cmd = nil
}

// Pause stops the member's process without ending it (SIGSTOP); Resume
// continues it.
func (m *Member) Pause() { m.cmd.Process.Signal(syscall.SIGSTOP) }

// Resume continues a paused member.
func (m *Member) Resume() { m.cmd.Process.Signal(syscall.SIGCONT) }

// Restart starts a stopped member again on its data directory and waits
// until it serves.
func (m *Member) Restart(t testing.TB) {
	t.Helper()
	if err := m.start(); err != nil {
		t.Fatal(err)
	}
	if err := m.waitReady(); err != nil {
		t.Fatal(err)
	}
}
