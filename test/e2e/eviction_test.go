package e2e_test

import (
	"regexp"
	"strings"
	"testing"
)

// TestDrainHonoursDisruptionBudget drains the default simulated node
// with real kubectl: drain cordons it, then evicts its pods through
// pods/eviction, which a PodDisruptionBudget holds back as kube's does.
// With minAvailable equal to the pod count nothing is evicted and drain
// gives up at its timeout; with one to spare one pod goes; without the
// budget the node drains.
func TestDrainHonoursDisruptionBudget(t *testing.T) {
	srv := startFreshServer(t)
	k := newKubectl(t, kubectlPath(t), srv)
	for _, name := range []string{"web-0", "web-1"} {
		k.ok(t, "run", name, "--image=nginx", "--labels=app=web")
	}
	k.ok(t, "wait", "--for=condition=Ready", "pod/web-0", "pod/web-1", "--timeout=60s")

	if out := k.ok(t, "create", "pdb", "web", "--selector=app=web", "--min-available=2"); strings.TrimSpace(out) != "poddisruptionbudget.policy/web created" {
		t.Fatalf("create pdb: %q", out)
	}
	eventually(t, "the disruption controller's status", func() (string, bool) {
		out := k.ok(t, "get", "pdb", "web", "-o", "jsonpath={.status.observedGeneration} {.status.expectedPods} {.status.currentHealthy} {.status.desiredHealthy} {.status.disruptionsAllowed}")
		return out, out == "1 2 2 2 0"
	})
	wantLines(t, "get pdb", k.ok(t, "get", "pdb"),
		`NAME\s+MIN AVAILABLE\s+MAX UNAVAILABLE\s+ALLOWED DISRUPTIONS\s+AGE`, `web\s+2\s+N/A\s+0\s+\S+`)

	drain := []string{"drain", "sim-node-0", "--ignore-daemonsets", "--delete-emptydir-data", "--force", "--timeout=8s"}
	t.Run("blocked by the budget", func(t *testing.T) {
		stderr := k.fails(t, drain...)
		if !strings.Contains(stderr, "Cannot evict pod as it would violate the pod's disruption budget.") {
			t.Errorf("drain stderr lacks the budget's refusal:\n%s", stderr)
		}
		wantLines(t, "get nodes", k.ok(t, "get", "nodes"), `sim-node-0\s+Ready,SchedulingDisabled\s.*`)
		k.ok(t, "get", "pod", "web-0")
		k.ok(t, "get", "pod", "web-1")
	})

	t.Run("one disruption allowed", func(t *testing.T) {
		k.ok(t, "patch", "pdb", "web", "--type=merge", "-p", `{"spec":{"minAvailable":1}}`)
		eventually(t, "one disruption allowed", func() (string, bool) {
			out := k.ok(t, "get", "pdb", "web", "-o", "jsonpath={.status.observedGeneration} {.status.disruptionsAllowed}")
			return out, out == "2 1"
		})
		r := k.run(t, drain...)
		if r.err == nil {
			t.Fatalf("drain succeeded with one pod held back: %v", r)
		}
		evicted := regexp.MustCompile(`pod/(web-\d) evicted`).FindStringSubmatch(r.stdout)
		if evicted == nil {
			t.Fatalf("drain evicted nothing: %v", r)
		}
		k.fails(t, "get", "pod", evicted[1])
		if out := k.ok(t, "get", "pods", "-o", "name"); strings.Count(out, "pod/web-") != 1 {
			t.Errorf("pods left: %q, want one", out)
		}
	})

	t.Run("drained without the budget", func(t *testing.T) {
		k.ok(t, "delete", "pdb", "web")
		out := k.ok(t, drain...)
		if !strings.Contains(out, "node/sim-node-0 drained") {
			t.Errorf("drain: %s", out)
		}
		if out := k.ok(t, "get", "pods", "-o", "name"); strings.TrimSpace(out) != "" {
			t.Errorf("pods left: %q", out)
		}
	})
}
