package e2e_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// TestPodGC: with --terminated-pod-gc-threshold 1, of three pods that
// ran to completion the pod garbage collector deletes the two oldest at
// its next look (every 20 s), and leaves the running one.
func TestPodGC(t *testing.T) {
	srv := startServer(t, serverConfig{dataDir: filepath.Join(t.TempDir(), "data"),
		args: []string{"--terminated-pod-gc-threshold", "1"}})
	k := newKubectl(t, kubectlPath(t), srv)

	k.ok(t, "run", "running", "--image=nginx")
	for i := range 3 {
		k.ok(t, "run", fmt.Sprintf("done-%d", i), "--image=busybox", "--restart=Never", "--annotations=setpoint.dev/exit-after=1s")
		time.Sleep(1100 * time.Millisecond) // creation times a second apart: the oldest is clear
	}
	waitWithin(t, 50*time.Second, "the two oldest finished pods collected", func() (string, bool) {
		out := k.ok(t, "get", "pods", "-o", "jsonpath={range .items[*]}{.metadata.name}={.status.phase} {end}")
		return out, out == "done-2=Succeeded running=Running "
	})
}
