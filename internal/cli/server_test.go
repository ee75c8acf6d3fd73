package cli

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/setpoint-dev/setpoint/pkg/storage/bolt"
)

func TestParseLogLevel(t *testing.T) {
	for _, tc := range []struct {
		name    string
		nameSet bool
		v       int
		vSet    bool
		want    slog.Level
	}{
		{"info", false, 0, false, slog.LevelInfo},
		{"debug", true, 0, false, slog.LevelDebug},
		{"WARN", true, 0, false, slog.LevelWarn},
		{"warning", true, 0, false, slog.LevelWarn},
		{"error", true, 0, false, slog.LevelError},
		{"info", false, 0, true, slog.LevelInfo},
		{"info", false, 2, true, slog.LevelInfo - 2},
		{"info", false, 4, true, slog.LevelDebug},
		{"info", false, 9, true, slog.LevelInfo - 9},
	} {
		got, err := parseLogLevel(tc.name, tc.nameSet, tc.v, tc.vSet)
		if err != nil || got != tc.want {
			t.Errorf("parseLogLevel(%q, %v, %d, %v) = %v, %v; want %v", tc.name, tc.nameSet, tc.v, tc.vSet, got, err, tc.want)
		}
	}
}

// TestServerStoreLocked: a second server on a data directory whose store
// another process holds says so, naming the file, instead of a bare
// "bolt: timeout".
func TestServerStoreLocked(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, dbFile)
	holder, err := bolt.Open(path, bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	var stdout, stderr syncBuffer
	code := Run(ctx, []string{"server", "--data-dir", dir, "--listen", "127.0.0.1:0"}, &stdout, &stderr)
	if code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	for _, want := range []string{"level=ERROR", "another process holds the store", path, "is a setpoint server already running with --data-dir " + dir} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
}

// TestServerAccessLog: --access-log makes the server log each request
// with its user and code, and never the token that authenticated it.
func TestServerAccessLog(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var stdout syncBuffer
	stderr := &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, []string{"server", "--data-dir", dir, "--listen", "127.0.0.1:0", "--access-log"}, &stdout, stderr)
	}()
	deadline := time.After(20 * time.Second)
	for !strings.Contains(stderr.String(), "setpoint API server ready") {
		select {
		case code := <-done:
			t.Fatalf("server exited with %d before it was ready: %s", code, stderr.String())
		case <-deadline:
			t.Fatalf("server not ready within 20s: %s", stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(dir, "kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Get(cfg.Host + "/api/v1/namespaces/default")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cancel()
	<-done
	want := `msg=request method=GET path=/api/v1/namespaces/default user=setpoint-admin code=200 latency=`
	if !strings.Contains(stderr.String(), want) {
		t.Errorf("log lacks %q:\n%s", want, stderr.String())
	}
	if strings.Contains(stderr.String(), cfg.BearerToken) {
		t.Errorf("log contains the admin token:\n%s", stderr.String())
	}
}
