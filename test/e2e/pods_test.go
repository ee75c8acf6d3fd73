package e2e_test

import (
	"strings"
	"testing"
	"time"
)

// TestSeedWalkthrough is the tutorial's first steps, verbatim, against
// `setpoint server` with its default simulated node: `kubectl run
// mynginx --image=nginx` makes a pod that the scheduler binds and the
// node runs, and `kubectl get pods mynginx -o yaml` shows it Running with
// the five conditions True. Then the everyday pod commands: wide and
// described listings, logs and exec, an unschedulable pod with
// kube-scheduler's message, cordon and uncordon, graceful and forced
// deletion.
func TestSeedWalkthrough(t *testing.T) {
	srv := startFreshServer(t)
	k := newKubectl(t, kubectlPath(t), srv)

	if out := k.ok(t, "run", "mynginx", "--image=nginx"); strings.TrimSpace(out) != "pod/mynginx created" {
		t.Fatalf("kubectl run: %q", out)
	}
	k.ok(t, "wait", "--for=condition=Ready", "pod/mynginx", "--timeout=60s")

	t.Run("get -o yaml", func(t *testing.T) {
		pod := k.getJSON(t, "pods", "mynginx")
		status := pod["status"].(map[string]any)
		if status["phase"] != "Running" || status["podIP"] == nil || status["hostIP"] == nil {
			t.Errorf("phase %v podIP %v hostIP %v, want Running with both IPs", status["phase"], status["podIP"], status["hostIP"])
		}
		got := map[string]any{}
		for _, c := range status["conditions"].([]any) {
			cm := c.(map[string]any)
			got[cm["type"].(string)] = cm["status"]
		}
		for _, c := range []string{"PodScheduled", "Initialized", "PodReadyToStartContainers", "ContainersReady", "Ready"} {
			if got[c] != "True" {
				t.Errorf("condition %s = %v, want True (all: %v)", c, got[c], got)
			}
		}
		cs := status["containerStatuses"].([]any)[0].(map[string]any)
		if cs["ready"] != true || cs["state"].(map[string]any)["running"] == nil {
			t.Errorf("container status %v, want ready and running", cs)
		}
		if yaml := k.ok(t, "get", "pods", "mynginx", "-o", "yaml"); !strings.Contains(yaml, "running:") || !strings.Contains(yaml, "nodeName: sim-node-0") {
			t.Errorf("-o yaml lacks the running state or the node:\n%s", yaml)
		}
	})

	t.Run("get -o wide and nodes", func(t *testing.T) {
		out := k.ok(t, "get", "pods", "-o", "wide")
		wantLines(t, "get pods -o wide", out,
			`NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES`,
			`mynginx\s+1/1\s+Running\s+0\s+\S+\s+10\.244\.\d+\.\d+\s+sim-node-0\s+<none>\s+<none>`)
		wantLines(t, "get nodes", k.ok(t, "get", "nodes"),
			`NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION`, `sim-node-0\s+Ready\s+\S+\s+\S+\s+v1\.33\S*`)
	})

	t.Run("describe shows the scheduler's and the kubelet's events", func(t *testing.T) {
		out := k.ok(t, "describe", "pod", "mynginx")
		for _, want := range []string{"Successfully assigned default/mynginx to sim-node-0", "Started container mynginx", "Node:             sim-node-0"} {
			if !strings.Contains(out, want) {
				t.Errorf("describe lacks %q:\n%s", want, out)
			}
		}
	})

	t.Run("logs and exec", func(t *testing.T) {
		k.ok(t, "logs", "mynginx")
		if stderr := k.fails(t, "exec", "mynginx", "--", "ls"); !strings.Contains(stderr, "simulated node") {
			t.Errorf("exec: %s", stderr)
		}
	})

	t.Run("unschedulable pod stays pending with the scheduler's message", func(t *testing.T) {
		k.ok(t, "run", "huge", "--image=nginx", `--overrides={"spec":{"containers":[{"name":"huge","image":"nginx","resources":{"requests":{"cpu":"1000"}}}]}}`)
		want := "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
		eventually(t, "PodScheduled False with kube-scheduler's message", func() (string, bool) {
			out := k.ok(t, "get", "pod", "huge", "-o", `jsonpath={.status.phase} {.status.conditions[?(@.type=="PodScheduled")].message}`)
			return out, out == "Pending "+want
		})
		k.ok(t, "delete", "pod", "huge")
	})

	t.Run("cordon and uncordon", func(t *testing.T) {
		k.ok(t, "cordon", "sim-node-0")
		wantLines(t, "get nodes", k.ok(t, "get", "nodes"), `sim-node-0\s+Ready,SchedulingDisabled\s.*`)
		k.ok(t, "run", "late", "--image=nginx")
		eventually(t, "the pod left pending on the cordoned node", func() (string, bool) {
			out := k.ok(t, "get", "pod", "late", "-o", `jsonpath={.status.conditions[?(@.type=="PodScheduled")].message}`)
			return out, strings.Contains(out, "1 node(s) were unschedulable")
		})
		k.ok(t, "uncordon", "sim-node-0")
		k.ok(t, "wait", "--for=condition=Ready", "pod/late", "--timeout=60s")
	})

	t.Run("graceful and forced deletion", func(t *testing.T) {
		if out := k.ok(t, "delete", "pod", "mynginx"); strings.TrimSpace(out) != `pod "mynginx" deleted` {
			t.Errorf("delete: %q", out)
		}
		k.fails(t, "get", "pod", "mynginx")
		k.ok(t, "delete", "pod", "late", "--force", "--grace-period=0")
		k.fails(t, "get", "pod", "late")
	})
}

// eventually retries check until it holds, for up to 30 s.
func eventually(t *testing.T, what string, check func() (string, bool)) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var last string
	for time.Now().Before(deadline) {
		var ok bool
		if last, ok = check(); ok {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("waiting for %s; last: %s", what, last)
}
