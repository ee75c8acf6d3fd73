package e2e_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestDeploymentWalkthrough is issue 16's walk-through with real kubectl
// against `setpoint server` and its default simulated node: a Deployment
// of 5 comes up Ready, a deleted pod is replaced, it scales to 2, an
// image change rolls out (never under replicas-maxUnavailable ready pods,
// seen from a watch) and `rollout status` returns, then history, undo,
// pause and resume, and restart.
func TestDeploymentWalkthrough(t *testing.T) {
	srv := startFreshServer(t)
	k := newKubectl(t, kubectlPath(t), srv)

	if out := k.ok(t, "create", "deployment", "nginx", "--image=nginx", "--replicas=5"); strings.TrimSpace(out) != "deployment.apps/nginx created" {
		t.Fatalf("kubectl create deployment: %q", out)
	}
	rolledOut := func() {
		t.Helper()
		if out := k.ok(t, "rollout", "status", "deployment/nginx", "--timeout=90s"); !strings.Contains(out, `deployment "nginx" successfully rolled out`) {
			t.Fatalf("rollout status: %q", out)
		}
	}
	rolledOut()
	livePods := func() []string {
		t.Helper()
		out := k.ok(t, "get", "pods", "-l", "app=nginx", "-o",
			`jsonpath={range .items[?(@.status.phase=="Running")]}{.metadata.name}{"="}{.status.conditions[?(@.type=="Ready")].status}{"/"}{.metadata.deletionTimestamp}{" "}{end}`)
		var names []string
		for _, f := range strings.Fields(out) {
			if name, state, _ := strings.Cut(f, "="); state == "True/" {
				names = append(names, name)
			}
		}
		return names
	}
	readyCount := func(want int) []string {
		t.Helper()
		var pods []string
		waitWithin(t, 90*time.Second, fmt.Sprintf("%d ready pods", want), func() (string, bool) {
			pods = livePods()
			return strings.Join(pods, " "), len(pods) == want
		})
		return pods
	}
	pods := readyCount(5)
	wantLines(t, "get deploy", k.ok(t, "get", "deploy", "nginx"), `nginx\s+5/5\s+5\s+5\s+\S+`)

	// The seed's example: a lost pod is replaced.
	k.ok(t, "delete", "pod", pods[0])
	waitWithin(t, 90*time.Second, "the deleted pod replaced", func() (string, bool) {
		now := livePods()
		return strings.Join(now, " "), len(now) == 5 && !strings.Contains(" "+strings.Join(now, " ")+" ", " "+pods[0]+" ")
	})

	if out := k.ok(t, "scale", "deployment/nginx", "--replicas=2"); strings.TrimSpace(out) != "deployment.apps/nginx scaled" {
		t.Fatalf("kubectl scale: %q", out)
	}
	rolledOut()
	readyCount(2)

	// maxUnavailable 25% of 2 rounds down to 0: the rollout never has
	// fewer than 2 ready pods.
	fewest := watchReadyPods(t, k, 2)
	if out := k.ok(t, "set", "image", "deployment/nginx", "nginx=nginx:1.27"); strings.TrimSpace(out) != "deployment.apps/nginx image updated" {
		t.Fatalf("kubectl set image: %q", out)
	}
	rolledOut()
	readyCount(2)
	if got := fewest(); got < 2 {
		t.Errorf("%d ready pods at the worst of the rollout, want at least 2", got)
	}
	wantLines(t, "get rs", k.ok(t, "get", "rs", "-l", "app=nginx"),
		`nginx-\S+\s+2\s+2\s+2\s+\S+`, `nginx-\S+\s+0\s+0\s+0\s+\S+`)
	wantLines(t, "rollout history", k.ok(t, "rollout", "history", "deployment/nginx"),
		`deployment\.apps/nginx\s*`, `REVISION\s+CHANGE-CAUSE`, `1\s+<none>`, `2\s+<none>`)
	if out := k.ok(t, "rollout", "history", "deployment/nginx", "--revision=2"); !strings.Contains(out, "nginx:1.27") {
		t.Errorf("rollout history --revision=2 shows no nginx:1.27:\n%s", out)
	}

	if out := k.ok(t, "rollout", "undo", "deployment/nginx"); strings.TrimSpace(out) != "deployment.apps/nginx rolled back" {
		t.Fatalf("rollout undo: %q", out)
	}
	rolledOut()
	image := func() string {
		return k.ok(t, "get", "deploy", "nginx", "-o", `jsonpath={.spec.template.spec.containers[0].image} {.metadata.annotations.deployment\.kubernetes\.io/revision}`)
	}
	if got := image(); got != "nginx 3" {
		t.Errorf("image and revision after undo %q, want \"nginx 3\"", got)
	}
	wantLines(t, "rollout history after undo", k.ok(t, "rollout", "history", "deployment/nginx"), `2\s+<none>`, `3\s+<none>`)

	if out := k.ok(t, "rollout", "pause", "deployment/nginx"); strings.TrimSpace(out) != "deployment.apps/nginx paused" {
		t.Fatalf("rollout pause: %q", out)
	}
	progressing := func(want string) {
		t.Helper()
		waitWithin(t, 30*time.Second, "Progressing "+want, func() (string, bool) {
			out := k.ok(t, "get", "deploy", "nginx", "-o", `jsonpath={.status.conditions[?(@.type=="Progressing")].status}/{.status.conditions[?(@.type=="Progressing")].reason}`)
			return out, out == want
		})
	}
	progressing("Unknown/DeploymentPaused")
	k.ok(t, "set", "image", "deployment/nginx", "nginx=nginx:1.28")
	waitWithin(t, 30*time.Second, "the paused template change observed", func() (string, bool) {
		out := k.ok(t, "get", "deploy", "nginx", "-o", `jsonpath={.metadata.generation}={.status.observedGeneration}`)
		a, b, _ := strings.Cut(out, "=")
		return out, a == b
	})
	if out := k.ok(t, "get", "rs", "-l", "app=nginx", "-o", "jsonpath={.items[*].spec.template.spec.containers[0].image}"); strings.Contains(out, "nginx:1.28") {
		t.Errorf("a paused deployment rolled out: replica sets run %s", out)
	}
	if out := k.ok(t, "rollout", "resume", "deployment/nginx"); strings.TrimSpace(out) != "deployment.apps/nginx resumed" {
		t.Fatalf("rollout resume: %q", out)
	}
	rolledOut()
	if got := image(); got != "nginx:1.28 4" {
		t.Errorf("image and revision after resume %q, want \"nginx:1.28 4\"", got)
	}
	progressing("True/NewReplicaSetAvailable")

	if out := k.ok(t, "rollout", "restart", "deployment/nginx"); strings.TrimSpace(out) != "deployment.apps/nginx restarted" {
		t.Fatalf("rollout restart: %q", out)
	}
	rolledOut()
	if got := image(); got != "nginx:1.28 5" {
		t.Errorf("image and revision after restart %q, want \"nginx:1.28 5\"", got)
	}
	readyCount(2)
	wantLines(t, "describe deployment", k.ok(t, "describe", "deployment", "nginx"),
		`Replicas:\s+2 desired \| 2 updated \| 2 total \| 2 available \| 0 unavailable`,
		`StrategyType:\s+RollingUpdate`, `RollingUpdateStrategy:\s+25% max unavailable, 25% max surge`,
		`\s+Available\s+True\s+MinimumReplicasAvailable`, `\s+Progressing\s+True\s+NewReplicaSetAvailable`,
		`NewReplicaSet:\s+nginx-\S+ \(2/2 replicas created\)`)

	events := k.ok(t, "get", "events", "--field-selector", "involvedObject.kind=Deployment,involvedObject.name=nginx", "-o", "jsonpath={range .items[*]}{.reason}: {.message}{\"\\n\"}{end}")
	for _, want := range []string{`ScalingReplicaSet: Scaled up replica set nginx-\S+ from 0 to 5`, `ScalingReplicaSet: Scaled down replica set nginx-\S+ from 5 to 2`} {
		wantLines(t, "deployment events", events, want)
	}
}

// watchReadyPods follows the app=nginx pods with `kubectl get -w` once
// want of them are ready and returns a func telling the fewest ready,
// live pods seen since.
func watchReadyPods(t *testing.T, k *kubectl, want int) func() int {
	t.Helper()
	b := k.start(t, 5*time.Minute, "get", "pods", "-l", "app=nginx", "--watch", "--output-watch-events", "-o",
		`jsonpath={.type}|{.object.metadata.name}|{.object.status.phase}|{.object.metadata.deletionTimestamp}|{.object.status.conditions[?(@.type=="Ready")].status}{"\n"}`)
	var mu sync.Mutex
	ready := map[string]bool{}
	fewest := -1
	started := make(chan struct{})
	go func() {
		for line := range b.lines {
			f := strings.Split(line, "|")
			if len(f) != 5 {
				continue
			}
			mu.Lock()
			if f[0] != "DELETED" && f[2] == "Running" && f[3] == "" && f[4] == "True" {
				ready[f[1]] = true
			} else {
				delete(ready, f[1])
			}
			switch {
			case fewest < 0 && len(ready) >= want:
				fewest = len(ready)
				close(started)
			case fewest >= 0 && len(ready) < fewest:
				fewest = len(ready)
			}
			mu.Unlock()
		}
	}()
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatalf("the watch saw no %d ready pods; printed:\n%s", want, b.stderr.String())
	}
	return func() int {
		mu.Lock()
		defer mu.Unlock()
		return fewest
	}
}

// TestDeploymentNodeFailure: the pods of a Deployment on a node whose
// kubelet stops are evicted once their (shortened) unreachable
// toleration runs out, and the Deployment is whole again on the other
// node.
func TestDeploymentNodeFailure(t *testing.T) {
	srv := startServer(t, serverConfig{dataDir: filepath.Join(t.TempDir(), "data"),
		args: []string{"--nodes", "2", "--node-monitor-grace-period", "20s"}})
	k := newKubectl(t, kubectlPath(t), srv)
	waitWithin(t, 30*time.Second, "both nodes registered and Ready", func() (string, bool) {
		out := k.ok(t, "get", "nodes", "-o", `jsonpath={range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="Ready")].status} {end}`)
		return out, out == "sim-node-0=True sim-node-1=True "
	})
	k.createFile(t, `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 4
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      tolerations:
      - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 2}
      - {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 2}
      containers: [{name: c, image: nginx}]
`)
	k.ok(t, "rollout", "status", "deployment/web", "--timeout=90s")
	// placement lists the live pods' nodes.
	placement := func() []string {
		out := k.ok(t, "get", "pods", "-l", "app=web", "-o",
			`jsonpath={range .items[?(@.status.phase=="Running")]}{.spec.nodeName}={.status.conditions[?(@.type=="Ready")].status}/{.metadata.deletionTimestamp} {end}`)
		var nodes []string
		for _, f := range strings.Fields(out) {
			if node, state, _ := strings.Cut(f, "="); state == "True/" {
				nodes = append(nodes, node)
			}
		}
		return nodes
	}
	if nodes := strings.Join(placement(), " "); !strings.Contains(nodes, "sim-node-0") {
		t.Fatalf("no pod on sim-node-0 to lose: %s", nodes)
	}

	setpointNode(t, srv, "stop", "sim-node-0")
	waitWithin(t, 90*time.Second, "4 ready pods, all on sim-node-1", func() (string, bool) {
		nodes := placement()
		return strings.Join(nodes, " "), len(nodes) == 4 && !strings.Contains(strings.Join(nodes, " "), "sim-node-0")
	})
	k.ok(t, "rollout", "status", "deployment/web", "--timeout=30s")
	wantLines(t, "get deploy", k.ok(t, "get", "deploy", "web"), `web\s+4/4\s+4\s+4\s+\S+`)
}
