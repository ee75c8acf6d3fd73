package e2e_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestStatefulSetKubectl drives the StatefulSet controller with real
// kubectl: a set of 3 applied comes up (`rollout status` returns and
// `get sts` says 3/3) with its pods named by ordinal, an image change
// rolls out to a new revision, and scaling to 1 leaves only web-0.
func TestStatefulSetKubectl(t *testing.T) {
	srv := startFreshServer(t)
	k := newKubectl(t, kubectlPath(t), srv)
	manifest := writeFile(t, "sts.yaml", `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web}
spec:
  serviceName: web
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: "nginx:1.25", volumeMounts: [{name: data, mountPath: /data}]}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Gi}}
`)
	if out := k.ok(t, "apply", "-f", manifest); strings.TrimSpace(out) != "statefulset.apps/web created" {
		t.Fatalf("kubectl apply: %q", out)
	}
	// The partition defaults to 0, so kubectl reports a partitioned
	// roll out, as it does against kube.
	out := k.ok(t, "rollout", "status", "statefulset/web", "--timeout=120s")
	if !strings.HasSuffix(out, "partitioned roll out complete: 3 new pods have been updated...\n") {
		t.Errorf("rollout status: %q", out)
	}
	wantLines(t, "get sts", k.ok(t, "get", "sts"), `NAME\s+READY\s+AGE`, `web\s+3/3\s+\S+`)
	got := k.ok(t, "get", "pods", "-l", "app=web", "-o", "jsonpath={range .items[*]}{.metadata.name}:{.spec.hostname}.{.spec.subdomain}:{.metadata.labels.apps\\.kubernetes\\.io/pod-index} {end}")
	if want := "web-0:web-0.web:0 web-1:web-1.web:1 web-2:web-2.web:2 "; got != want {
		t.Errorf("pods %q, want %q", got, want)
	}
	rev1 := k.ok(t, "get", "sts", "web", "-o", "jsonpath={.status.currentRevision}")

	k.ok(t, "set", "image", "sts/web", "c=nginx:1.26")
	out = k.ok(t, "rollout", "status", "statefulset/web", "--timeout=120s")
	if !strings.HasSuffix(out, "partitioned roll out complete: 3 new pods have been updated...\n") {
		t.Errorf("rollout status after set image: %q", out)
	}
	waitWithin(t, 30*time.Second, "the update revision current", func() (string, bool) {
		out := k.ok(t, "get", "sts", "web", "-o", "jsonpath={.status.currentRevision} {.status.updateRevision} {.status.currentReplicas} {.status.updatedReplicas}")
		f := strings.Fields(out)
		return out, len(f) == 4 && f[0] == f[1] && f[0] != rev1 && f[2] == "3" && f[3] == "3"
	})
	rev2 := k.ok(t, "get", "sts", "web", "-o", "jsonpath={.status.currentRevision}")
	got = k.ok(t, "get", "pods", "-l", "app=web", "-o", "jsonpath={range .items[*]}{.spec.containers[0].image} {end}")
	if want := "nginx:1.26 nginx:1.26 nginx:1.26 "; got != want {
		t.Errorf("images %q, want %q", got, want)
	}
	got = k.ok(t, "get", "controllerrevisions", "-o", "jsonpath={range .items[*]}{.metadata.name}={.revision} {end}")
	if want := rev1 + "=1 " + rev2 + "=2 "; !sameWords(got, want) {
		t.Errorf("controller revisions %q, want %q", got, want)
	}

	if out := k.ok(t, "scale", "sts", "web", "--replicas=1"); strings.TrimSpace(out) != "statefulset.apps/web scaled" {
		t.Errorf("kubectl scale: %q", out)
	}
	waitWithin(t, 90*time.Second, "scaled down to web-0", func() (string, bool) {
		out := k.ok(t, "get", "pods", "-l", "app=web", "-o", "jsonpath={range .items[*]}{.metadata.name} {end}")
		return out, out == "web-0 "
	})
	waitWithin(t, 30*time.Second, "get sts 1/1", func() (string, bool) {
		out := k.ok(t, "get", "sts", "web", "--no-headers")
		return out, regexp.MustCompile(`^web\s+1/1\s+`).MatchString(out)
	})
	// Claims are kept on scale down (the default Retain policy) and
	// stay Pending: no volume is provisioned for them.
	pvcs := parseTable(t, k.ok(t, "get", "pvc"))
	if want := []string{"NAME", "STATUS", "VOLUME", "CAPACITY", "ACCESS MODES", "STORAGECLASS", "VOLUMEATTRIBUTESCLASS", "AGE"}; !slices.Equal(pvcs.header, want) {
		t.Errorf("get pvc columns %q, want %q", pvcs.header, want)
	}
	for _, name := range []string{"data-web-0", "data-web-1", "data-web-2"} {
		row, ok := pvcs.row(map[string]string{"NAME": name})
		if !ok || row["STATUS"] != "Pending" || row["VOLUMEATTRIBUTESCLASS"] != "<unset>" {
			t.Errorf("get pvc: %s row %v", name, row)
		}
	}
	wantLines(t, "get pvc -o wide", k.ok(t, "get", "pvc", "data-web-0", "-o", "wide"),
		`NAME\s+STATUS\s+VOLUME\s+CAPACITY\s+ACCESS MODES\s+STORAGECLASS\s+VOLUMEATTRIBUTESCLASS\s+AGE\s+VOLUMEMODE`,
		`data-web-0\s+Pending\s+<unset>\s+\S+\s+Filesystem`)
	events := k.ok(t, "get", "events", "--field-selector", "involvedObject.kind=StatefulSet", "-o", "jsonpath={range .items[*]}{.reason}: {.message}{\"\\n\"}{end}")
	for _, want := range []string{
		"SuccessfulCreate: create Pod web-0 in StatefulSet web successful",
		"SuccessfulDelete: delete Pod web-2 in StatefulSet web successful",
		"SuccessfulCreate: create Claim data-web-0 Pod web-0 in StatefulSet web success",
	} {
		if !strings.Contains(events, want) {
			t.Errorf("no event %q in:\n%s", want, events)
		}
	}
}

// sameWords reports whether a and b hold the same words in any order.
func sameWords(a, b string) bool {
	wa, wb := strings.Fields(a), strings.Fields(b)
	if len(wa) != len(wb) {
		return false
	}
	seen := map[string]int{}
	for _, w := range wa {
		seen[w]++
	}
	for _, w := range wb {
		if seen[w]--; seen[w] < 0 {
			return false
		}
	}
	return true
}
