package e2e_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const daemonSetManifest = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: agent, image: "agent:1"}]
`

// TestDaemonSet runs a DaemonSet on a server with three simulated nodes
// through real kubectl: `kubectl apply`, `rollout status` returns once a
// pod is available on every node, `get ds` prints kube's columns with
// the node count in each, `set image` rolls out a second revision that
// `rollout history` lists, and `rollout undo` brings the first back.
func TestDaemonSet(t *testing.T) {
	srv := startServer(t, serverConfig{dataDir: filepath.Join(t.TempDir(), "data"), args: []string{"--nodes", "3"}})
	k := newKubectl(t, kubectlPath(t), srv)

	// New nodes are tainted not-ready until the node lifecycle
	// controller sees them Ready, and daemon pods do not tolerate that.
	waitWithin(t, 60*time.Second, "three nodes Ready", func() (string, bool) {
		out := k.ok(t, "get", "nodes", "-o", `jsonpath={range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="Ready")].status} {end}`)
		return out, out == "sim-node-0=True sim-node-1=True sim-node-2=True "
	})
	if out := k.ok(t, "apply", "-f", writeFile(t, "ds.yaml", daemonSetManifest)); strings.TrimSpace(out) != "daemonset.apps/agent created" {
		t.Fatalf("kubectl apply: %q", out)
	}
	rolledOut := func() {
		t.Helper()
		out := k.ok(t, "rollout", "status", "ds/agent", "--timeout=25s")
		if !strings.Contains(out, `daemon set "agent" successfully rolled out`) {
			t.Fatalf("rollout status: %q", out)
		}
	}
	rolledOut()
	wantLines(t, "get ds", k.ok(t, "get", "ds"),
		`NAME\s+DESIRED\s+CURRENT\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+NODE SELECTOR\s+AGE`,
		`agent\s+3\s+3\s+3\s+3\s+3\s+<none>\s+\S+`)
	nodesOf := func() string {
		return k.ok(t, "get", "pods", "-l", "app=agent", "--field-selector=status.phase=Running", "-o", `jsonpath={range .items[*]}{.spec.nodeName} {end}`)
	}
	for _, n := range []string{"sim-node-0", "sim-node-1", "sim-node-2"} {
		if out := nodesOf(); strings.Count(out, n+" ") != 1 {
			t.Errorf("pods on %q, want one on %s", out, n)
		}
	}

	k.ok(t, "set", "image", "ds/agent", "agent=agent:2")
	rolledOut()
	wantLines(t, "get ds -o wide", k.ok(t, "get", "ds", "agent", "-o", "wide"),
		`NAME\s+DESIRED\s+CURRENT\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+NODE SELECTOR\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR`,
		`agent\s+3\s+3\s+3\s+3\s+3\s+<none>\s+\S+\s+agent\s+agent:2\s+app=agent`)
	wantLines(t, "rollout history", k.ok(t, "rollout", "history", "ds/agent"),
		`REVISION\s+CHANGE-CAUSE`, `1\s+<none>`, `2\s+<none>`)

	if out := k.ok(t, "rollout", "undo", "ds/agent"); strings.TrimSpace(out) != "daemonset.apps/agent rolled back" {
		t.Fatalf("rollout undo: %q", out)
	}
	rolledOut()
	// The replaced pods may take a moment to finish terminating.
	waitWithin(t, 30*time.Second, "agent:1 on every pod after undo", func() (string, bool) {
		out := k.ok(t, "get", "pods", "-l", "app=agent", "-o", `jsonpath={range .items[*]}{.spec.containers[0].image} {end}`)
		return out, out == "agent:1 agent:1 agent:1 "
	})
	wantLines(t, "rollout history after undo", k.ok(t, "rollout", "history", "ds/agent"),
		`REVISION\s+CHANGE-CAUSE`, `2\s+<none>`, `3\s+<none>`)
}
