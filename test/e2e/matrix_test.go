package e2e_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Minor versions of the versioned kubectl binaries (kubectl.1.NN) the matrix
// looks for beside the resolved kubectl.
const (
	oldestKubectlMinor = 27
	newestKubectlMinor = 33
)

// TestKubectlVersionMatrix runs a short smoke test with every versioned
// kubectl installed beside kubectl, one parallel subtest per version.
func TestKubectlVersionMatrix(t *testing.T) {
	kubectl := kubectlPath(t)
	resolved, err := filepath.EvalSymlinks(kubectl)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(resolved)

	var srv *server
	for minor := oldestKubectlMinor; minor <= newestKubectlMinor; minor++ {
		version := fmt.Sprintf("1.%d", minor)
		bin := filepath.Join(dir, "kubectl."+version)
		if fi, err := os.Stat(bin); err != nil || fi.IsDir() {
			t.Run(version, func(t *testing.T) { t.Skipf("%s not installed", bin) })
			continue
		}
		if srv == nil {
			srv = startFreshServer(t)
		}
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			smokeTest(t, newKubectl(t, bin, srv), minor)
		})
	}
}

// smokeTest is the everyday round trip: namespace, configmap from a file,
// get as table and YAML, delete, discovery.
func smokeTest(t *testing.T, k *kubectl, minor int) {
	var v struct {
		ClientVersion struct{ Major, Minor string }
	}
	out := k.ok(t, "version", "--client", "-o", "json")
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("kubectl version --client -o json: %v\n%s", err, out)
	}
	if got, want := v.ClientVersion.Major+"."+strings.TrimSuffix(v.ClientVersion.Minor, "+"), fmt.Sprintf("1.%d", minor); got != want {
		t.Fatalf("client version %s, want %s", got, want)
	}

	ns := fmt.Sprintf("e2e-kubectl-1-%d", minor)
	if got, want := k.ok(t, "create", "namespace", ns), "namespace/"+ns+" created\n"; got != want {
		t.Errorf("create namespace: %q, want %q", got, want)
	}
	manifest := configMapYAML(ns, "smoke", map[string]string{"app": "smoke"}, map[string]string{"greeting": "hello"})
	if got, want := k.createFile(t, manifest), "configmap/smoke created\n"; got != want {
		t.Errorf("create -f: %q, want %q", got, want)
	}

	tb := parseTable(t, k.ok(t, "get", "configmap", "smoke", "-n", ns))
	if want := []string{"NAME", "DATA", "AGE"}; !slices.Equal(tb.header, want) {
		t.Errorf("get: header %q, want %q", tb.header, want)
	}
	if len(tb.rows) != 1 || tb.rows[0]["NAME"] != "smoke" || tb.rows[0]["DATA"] != "1" {
		t.Errorf("get: rows %v, want one: smoke 1", tb.rows)
	}

	yamlOut := k.ok(t, "get", "configmap", "smoke", "-n", ns, "-o", "yaml")
	for _, want := range []string{"kind: ConfigMap", "name: smoke", "namespace: " + ns, "greeting: hello", "uid: "} {
		if !strings.Contains(yamlOut, want) {
			t.Errorf("get -o yaml lacks %q:\n%s", want, yamlOut)
		}
	}

	if out := k.ok(t, "delete", "configmap", "smoke", "-n", ns); !strings.Contains(out, `configmap "smoke" deleted`) {
		t.Errorf("delete: %q, want configmap \"smoke\" deleted", out)
	}
	if stderr := k.fails(t, "get", "configmap", "smoke", "-n", ns); !strings.Contains(stderr, `configmaps "smoke" not found`) {
		t.Errorf("get after delete: %q, want NotFound", stderr)
	}

	resources := parseTable(t, k.ok(t, "api-resources"))
	for _, want := range []map[string]string{
		{"NAME": "configmaps", "APIVERSION": "v1", "NAMESPACED": "true", "KIND": "ConfigMap"},
		{"NAME": "leases", "APIVERSION": "coordination.k8s.io/v1", "NAMESPACED": "true", "KIND": "Lease"},
		{"NAME": "customresourcedefinitions", "APIVERSION": "apiextensions.k8s.io/v1", "NAMESPACED": "false", "KIND": "CustomResourceDefinition"},
	} {
		if _, ok := resources.row(want); !ok {
			t.Errorf("api-resources has no row %v", want)
		}
	}
}
