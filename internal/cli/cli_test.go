package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestRun(t *testing.T) {
	tests := []struct {
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{args: nil, wantCode: 2, wantStderr: "Usage: setpoint"},
		{args: []string{"help"}, wantCode: 0, wantStdout: "Commands:"},
		{args: []string{"version"}, wantCode: 0, wantStdout: "setpoint v"},
		{args: []string{"version", "-x"}, wantCode: 2, wantStderr: "flag provided but not defined"},
		{args: []string{"server", "--storage", "nope"}, wantCode: 2, wantStderr: "--storage must be bolt, etcd or memory"},
		{args: []string{"server", "--storage", "etcd"}, wantCode: 2, wantStderr: "--storage etcd needs --etcd-servers"},
		{args: []string{"server", "extra"}, wantCode: 2, wantStderr: "unexpected arguments"},
		{args: []string{"server", "--log-level", "loud"}, wantCode: 2, wantStderr: `--log-level must be debug, info, warn or error, not "loud"`},
		{args: []string{"server", "-v=2", "--log-level", "debug"}, wantCode: 2, wantStderr: "give --log-level or -v, not both"},
		{args: []string{"server", "-v=-1"}, wantCode: 2, wantStderr: "-v must be 0 or more"},
		{args: []string{"server", "--request-timeout", "0s"}, wantCode: 2, wantStderr: "must be positive"},
		{args: []string{"server", "--max-requests-inflight", "-1"}, wantCode: 2, wantStderr: "--max-requests-inflight must not be negative"},
		{args: []string{"server", "--max-mutating-requests-inflight", "-1"}, wantCode: 2, wantStderr: "--max-mutating-requests-inflight must not be negative"},
		{args: []string{"server", "--max-watches", "-2"}, wantCode: 2, wantStderr: "--max-watches must not be negative"},
		{args: []string{"server", "--node-monitor-grace-period", "10s"}, wantCode: 2, wantStderr: "--node-monitor-grace-period must exceed the 10s lease renewal interval"},
		{args: []string{"nope"}, wantCode: 2, wantStderr: `unknown command "nope"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			got := Run(context.Background(), tt.args, &stdout, &stderr)
			if got != tt.wantCode {
				t.Errorf("exit code %d, want %d (stderr %q)", got, tt.wantCode, stderr.String())
			}
			if !strings.Contains(stdout.String(), tt.wantStdout) {
				t.Errorf("stdout %q, want it to contain %q", stdout.String(), tt.wantStdout)
			}
			if !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("stderr %q, want it to contain %q", stderr.String(), tt.wantStderr)
			}
		})
	}
}

// TestServer runs the server command in-process until it is ready, then
// stops it the way a signal does, by cancelling its context.
func TestServer(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var stdout bytes.Buffer
	stderr := &syncBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, []string{"server", "--data-dir", dir, "--listen", "127.0.0.1:0"}, &stdout, stderr)
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
	for _, f := range []string{"kubeconfig", "setpoint.db", "pki/ca.crt"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("data dir lacks %s: %v", f, err)
		}
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit code %d after a clean stop, want 0: %s", code, stderr.String())
	}
	if strings.Contains(stderr.String(), "level=ERROR") {
		t.Errorf("error logged on a clean shutdown: %s", stderr.String())
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
