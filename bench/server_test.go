package bench

import (
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// startServer builds `setpoint` into dir and runs `setpoint server
// --storage memory` with its data in dir, on a free loopback port, as a
// process of its own so its memory and CPU are not the benchmark's. It
// returns once the server is ready: the admin config, the kubeconfig's
// path and the process id. The server lives as long as the test binary,
// which takes it along when it exits.
func startServer(b *testing.B, dir string) (*rest.Config, string, int) {
	b.Helper()
	return startServerWith(b, dir, "--storage", "memory")
}

// startServerWith is startServer with flags of the caller's choosing;
// without any, the server keeps its data in bolt, fsync on.
func startServerWith(b *testing.B, dir string, flags ...string) (*rest.Config, string, int) {
	b.Helper()
	bin := filepath.Join(dir, "setpoint")
	build := exec.Command("go", "build", "-o", bin, "./cmd/setpoint")
	build.Dir = ".." // the product module, with its own dependencies
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("building setpoint: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, append([]string{"server", "--data-dir", dir, "--listen", addr}, flags...)...)
	log := &syncWriter{w: &strings.Builder{}}
	cmd.Stderr = log
	cmd.SysProcAttr = dieWithParent()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	go func() { _ = cmd.Wait() }()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	deadline := time.Now().Add(30 * time.Second)
	for {
		if c, err := clientcmd.BuildConfigFromFlags("", kubeconfig); err == nil && strings.Contains(log.String(), "ready") {
			return c, kubeconfig, cmd.Process.Pid
		}
		if time.Now().After(deadline) {
			b.Fatalf("server not ready: %s", log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
