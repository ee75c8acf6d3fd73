package e2e_test

import (
	"strings"
	"testing"
)

// TestAppsKubectl serves the apps/v1 workloads to real kubectl as
// kube-apiserver does: `kubectl create deployment` is accepted with the
// defaults, `get` prints kube's columns (wide ones too) for each kind
// and lists the workloads under `get all`, `scale` writes
// spec.replicas through /scale, and bad input is refused in kube's
// words. Counts are not asserted: they are the controllers' to set.
func TestAppsKubectl(t *testing.T) {
	srv := startFreshServer(t)
	k := newKubectl(t, kubectlPath(t), srv)

	if out := k.ok(t, "create", "deployment", "nginx", "--image=nginx", "--replicas=5"); strings.TrimSpace(out) != "deployment.apps/nginx created" {
		t.Fatalf("kubectl create deployment: %q", out)
	}
	k.createFile(t, `apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: rs1}
spec:
  selector: {matchExpressions: [{key: app, operator: In, values: [web]}]}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: "nginx:1.25"}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web}
spec:
  serviceName: web
  replicas: 3
  selector: {matchLabels: {app: sts}}
  template:
    metadata: {labels: {app: sts}}
    spec:
      containers: [{name: c, image: "nginx:1.25"}]
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: ds1}
spec:
  selector: {matchLabels: {app: ds}}
  template:
    metadata: {labels: {app: ds}}
    spec:
      nodeSelector: {disk: ssd}
      containers: [{name: c, image: "busybox:1"}]
`)

	t.Run("defaults", func(t *testing.T) {
		got := k.ok(t, "get", "deploy", "nginx", "-o", "jsonpath={.spec.replicas} {.spec.strategy.type} {.spec.strategy.rollingUpdate.maxSurge} "+
			"{.spec.strategy.rollingUpdate.maxUnavailable} {.spec.revisionHistoryLimit} {.spec.progressDeadlineSeconds} {.metadata.generation} "+
			"{.spec.template.spec.restartPolicy} {.spec.template.spec.containers[0].imagePullPolicy}")
		if want := "5 RollingUpdate 25% 25% 10 600 1 Always Always"; got != want {
			t.Errorf("deployment defaults %q, want %q", got, want)
		}
		got = k.ok(t, "get", "sts", "web", "-o", "jsonpath={.spec.podManagementPolicy} {.spec.updateStrategy.rollingUpdate.partition} "+
			"{.spec.persistentVolumeClaimRetentionPolicy.whenDeleted} {.spec.persistentVolumeClaimRetentionPolicy.whenScaled}")
		if want := "OrderedReady 0 Retain Retain"; got != want {
			t.Errorf("statefulset defaults %q, want %q", got, want)
		}
		got = k.ok(t, "get", "ds", "ds1", "-o", `jsonpath={.spec.updateStrategy.rollingUpdate.maxUnavailable} {.spec.updateStrategy.rollingUpdate.maxSurge} {.metadata.annotations.deprecated\.daemonset\.template\.generation}`)
		if want := "1 0 1"; got != want {
			t.Errorf("daemonset defaults %q, want %q", got, want)
		}
	})

	t.Run("get", func(t *testing.T) {
		wantLines(t, "get deploy,rs", k.ok(t, "get", "deploy,rs"),
			`NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE`, `deployment\.apps/nginx\s+\d+/5\s+\d+\s+\d+\s+\S+`,
			`NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE`, `replicaset\.apps/rs1\s+1\s+\d+\s+\d+\s+\S+`)
		wantLines(t, "get deploy -o wide", k.ok(t, "get", "deploy", "nginx", "-o", "wide"),
			`NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR`, `nginx\s+\d+/5\s+\d+\s+\d+\s+\S+\s+nginx\s+nginx\s+app=nginx`)
		wantLines(t, "get rs -o wide", k.ok(t, "get", "rs", "rs1", "-o", "wide"),
			`NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR`, `rs1\s+1\s+\d+\s+\d+\s+\S+\s+c\s+nginx:1\.25\s+app in \(web\)`)
		wantLines(t, "get sts,ds -o wide", k.ok(t, "get", "sts,ds", "-o", "wide"),
			`NAME\s+READY\s+AGE\s+CONTAINERS\s+IMAGES`, `statefulset\.apps/web\s+\d+/3\s+\S+\s+c\s+nginx:1\.25`,
			`NAME\s+DESIRED\s+CURRENT\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+NODE SELECTOR\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR`,
			`daemonset\.apps/ds1\s+\d+\s+\d+\s+\d+\s+\d+\s+\d+\s+disk=ssd\s+\S+\s+c\s+busybox:1\s+app=ds`)
		wantLines(t, "get all", k.ok(t, "get", "all"),
			`NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE`, `deployment\.apps/nginx\s+\d+/5\s+\d+\s+\d+\s+\S+`,
			`NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE`, `replicaset\.apps/rs1\s+1\s+\d+\s+\d+\s+\S+`,
			`NAME\s+READY\s+AGE`, `statefulset\.apps/web\s+\d+/3\s+\S+`,
			`daemonset\.apps/ds1\s+\d+\s+\d+\s+\d+\s+\d+\s+\d+\s+disk=ssd\s+\S+`,
			`service/kubernetes\s+ClusterIP\s+\S+\s+<none>\s+443/TCP\s+\S+`)
	})

	t.Run("scale", func(t *testing.T) {
		if out := k.ok(t, "scale", "deployment", "nginx", "--replicas=2"); strings.TrimSpace(out) != "deployment.apps/nginx scaled" {
			t.Fatalf("kubectl scale: %q", out)
		}
		if got := k.ok(t, "get", "deploy", "nginx", "-o", "jsonpath={.spec.replicas} {.metadata.generation}"); got != "2 2" {
			t.Errorf("replicas and generation after scale %q, want \"2 2\"", got)
		}
		k.ok(t, "scale", "sts", "web", "--replicas=1")
		k.ok(t, "scale", "rs", "rs1", "--replicas=0")
		if got := k.ok(t, "get", "sts/web", "rs/rs1", "-o", "jsonpath={.items[*].spec.replicas}"); got != "1 0" {
			t.Errorf("statefulset and replicaset replicas after scale %q, want \"1 0\"", got)
		}
	})

	t.Run("refused", func(t *testing.T) {
		stderr := k.fails(t, "create", "-f", writeFile(t, "bad.yaml", `apiVersion: apps/v1
kind: Deployment
metadata: {name: bad}
spec:
  selector: {matchLabels: {app: x}}
  template:
    metadata: {labels: {app: "z"}}
    spec:
      containers: [{name: c, image: nginx}]
`))
		if want := "The Deployment \"bad\" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"z\"}: `selector` does not match template `labels`"; !strings.Contains(stderr, want) {
			t.Errorf("create with a mismatched selector: %q, want %q", stderr, want)
		}
		stderr = k.fails(t, "patch", "deploy", "nginx", "-p", `{"spec":{"selector":{"matchLabels":{"app":"x"}},"template":{"metadata":{"labels":{"app":"x"}}}}}`)
		if want := `The Deployment "nginx" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"x"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable`; !strings.Contains(stderr, want) {
			t.Errorf("patch of the selector: %q, want %q", stderr, want)
		}
		stderr = k.fails(t, "patch", "sts", "web", "-p", `{"spec":{"serviceName":"other"}}`)
		if want := `The StatefulSet "web" is invalid: spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden`; !strings.Contains(stderr, want) {
			t.Errorf("patch of a statefulset's service: %q, want %q", stderr, want)
		}
	})
}
