package e2e_test

import (
	"path/filepath"
	"testing"
	"time"
)

// TestQuietWatch: `kubectl get -w` outlives a quiet spell longer than the
// server's watch write timeout and prints the next change, over HTTP/2
// (kubectl's default) and HTTP/1.1. The watch used to die with
// INTERNAL_ERROR one write timeout after its last event. The timeout is
// cut to a second so the test need not sit out the minute.
func TestQuietWatch(t *testing.T) {
	bin := kubectlPath(t)
	t.Parallel()
	const writeTimeout = time.Second
	s := startServer(t, serverConfig{
		dataDir: filepath.Join(t.TempDir(), "data"),
		storage: "memory",
		args:    []string{"--watch-write-timeout", writeTimeout.String()},
	})
	k := newKubectl(t, bin, s)
	k.ok(t, "create", "namespace", "quiet")
	k.ok(t, "create", "configmap", "seed", "-n", "quiet", "--from-literal=a=1")
	for _, tc := range []struct {
		name string
		env  []string
	}{
		{"HTTP/2", nil},
		{"HTTP/1.1", []string{"DISABLE_HTTP2=1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := *k
			w.env = tc.env
			watch := w.start(t, time.Minute, "get", "configmaps", "-n", "quiet", "--watch", "--output-watch-events")
			watch.waitLine(t, "ADDED", "seed")
			watch.stillRunning(t, 4*writeTimeout)
			name := map[string]string{"HTTP/2": "after-h2", "HTTP/1.1": "after-h1"}[tc.name]
			k.ok(t, "create", "configmap", name, "-n", "quiet", "--from-literal=a=1")
			watch.waitLine(t, "ADDED", name)
		})
	}
}
