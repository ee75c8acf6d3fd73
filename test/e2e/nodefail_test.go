package e2e_test

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// nodeFailureManifest makes two pods on sim-node-0: one that tolerates
// an unreachable node for 5 s, one that tolerates it for ever.
const nodeFailureManifest = `apiVersion: v1
kind: Pod
metadata:
  name: short
spec:
  nodeSelector:
    kubernetes.io/hostname: sim-node-0
  tolerations:
  - key: node.kubernetes.io/unreachable
    operator: Exists
    effect: NoExecute
    tolerationSeconds: 5
  containers:
  - name: app
    image: nginx
---
apiVersion: v1
kind: Pod
metadata:
  name: forever
spec:
  nodeSelector:
    kubernetes.io/hostname: sim-node-0
  tolerations:
  - key: node.kubernetes.io/unreachable
    operator: Exists
    effect: NoExecute
  containers:
  - name: app
    image: nginx
`

// TestNodeFailure stops the kubelet of one of two simulated nodes with
// `setpoint node stop`: the node lifecycle controller marks it Unknown
// (NotReady) and taints it unreachable, the taint eviction controller
// evicts the pod whose toleration ran out and keeps the one that
// tolerates it for ever, and a new pod lands on the healthy node. `setpoint
// node start` brings the node back, and its kubelet finishes the evicted
// pod. The grace period is shortened to 20 s to keep the test short.
func TestNodeFailure(t *testing.T) {
	srv := startServer(t, serverConfig{dataDir: filepath.Join(t.TempDir(), "data"),
		args: []string{"--nodes", "2", "--node-monitor-grace-period", "20s"}})
	k := newKubectl(t, kubectlPath(t), srv)

	// The nodes register just after the server is ready: kubectl wait
	// would fail on a node not there yet.
	waitWithin(t, 30*time.Second, "both nodes registered and Ready", func() (string, bool) {
		out := k.ok(t, "get", "nodes", "-o", `jsonpath={range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="Ready")].status} {end}`)
		return out, out == "sim-node-0=True sim-node-1=True "
	})
	k.createFile(t, nodeFailureManifest)
	k.ok(t, "wait", "--for=condition=Ready", "pod/short", "pod/forever", "--timeout=30s")
	if out := k.ok(t, "get", "pods", "short", "forever", "-o", "jsonpath={.items[*].spec.nodeName}"); out != "sim-node-0 sim-node-0" {
		t.Fatalf("pods on %q, want both on sim-node-0", out)
	}

	if out := setpointNode(t, srv, "stop", "sim-node-0"); out != "node/sim-node-0 heartbeat stopped\n" {
		t.Errorf("setpoint node stop: %q", out)
	}
	stopped := time.Now()
	waitWithin(t, 40*time.Second, "sim-node-0 Unknown and tainted unreachable", func() (string, bool) {
		out := k.ok(t, "get", "node", "sim-node-0", "-o",
			`jsonpath={.status.conditions[?(@.type=="Ready")].status}/{.status.conditions[?(@.type=="Ready")].reason} {.spec.taints[*].key}:{.spec.taints[*].effect}`)
		return out, strings.HasPrefix(out, "Unknown/NodeStatusUnknown ") &&
			strings.Count(out, "node.kubernetes.io/unreachable") == 2 && strings.Contains(out, "NoSchedule") && strings.Contains(out, "NoExecute")
	})
	if d := time.Since(stopped); d < 15*time.Second {
		t.Errorf("node marked Unknown %v after its heartbeat stopped, before the 20 s grace period", d.Round(time.Second))
	}
	wantLines(t, "get nodes", k.ok(t, "get", "nodes"), `sim-node-0\s+NotReady\s.*`, `sim-node-1\s+Ready\s.*`)

	waitWithin(t, 20*time.Second, "short evicted by the taint manager", func() (string, bool) {
		out := k.ok(t, "get", "pod", "short", "-o",
			`jsonpath={.metadata.deletionTimestamp} {.status.conditions[?(@.type=="DisruptionTarget")].reason}`)
		return out, strings.HasSuffix(out, " DeletionByTaintManager") && !strings.HasPrefix(out, " ")
	})
	// short's 5 s are over: forever would have gone with it.
	time.Sleep(2 * time.Second)
	if out := k.ok(t, "get", "pod", "forever", "-o", `jsonpath={.metadata.deletionTimestamp}|{.status.phase}`); out != "|Running" {
		t.Errorf("forever: deletion %q, want kept Running", out)
	}

	k.ok(t, "run", "replacement", "--image=nginx")
	k.ok(t, "wait", "--for=condition=Ready", "pod/replacement", "--timeout=30s")
	if out := k.ok(t, "get", "pod", "replacement", "-o", "jsonpath={.spec.nodeName}"); out != "sim-node-1" {
		t.Errorf("replacement on %q, want the healthy sim-node-1", out)
	}

	if out := setpointNode(t, srv, "start", "sim-node-0"); out != "node/sim-node-0 heartbeat started\n" {
		t.Errorf("setpoint node start: %q", out)
	}
	k.ok(t, "wait", "--for=condition=Ready", "node/sim-node-0", "--timeout=30s")
	waitWithin(t, 30*time.Second, "sim-node-0 untainted", func() (string, bool) {
		out := k.ok(t, "get", "node", "sim-node-0", "-o", "jsonpath={.spec.taints}")
		return out, out == ""
	})
	waitWithin(t, 30*time.Second, "the evicted pod finished by the restarted kubelet", func() (string, bool) {
		out := k.ok(t, "get", "pod", "short", "--ignore-not-found", "-o", "name")
		return out, out == ""
	})
}

// setpointNode runs `setpoint node VERB NAME` against srv and returns
// its output.
func setpointNode(t *testing.T, srv *server, verb, name string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(t.Context(), setpointBin, "node", verb, name, "--kubeconfig", srv.kubeconfig)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("setpoint node %s %s: %v\n%s", verb, name, err, stderr.String())
	}
	return stdout.String()
}

// waitWithin retries check until it holds, for up to d.
func waitWithin(t *testing.T, d time.Duration, what string, check func() (string, bool)) {
	t.Helper()
	deadline := time.Now().Add(d)
	var last string
	for time.Now().Before(deadline) {
		var ok bool
		if last, ok = check(); ok {
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatalf("waiting %v for %s; last: %s", d, what, last)
}
