package e2e_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fullKubectlMinors are the versioned kubectl binaries TestKubectlFull
// requires beside the resolved kubectl, besides the default one.
var fullKubectlMinors = []int{29, 33}

// TestKubectlFull drives every everyday kubectl command against one
// server, once per kubectl binary (the default one and each of
// fullKubectlMinors), each in a namespace and CRD group of its own so the
// binaries run in parallel. Every numbered step is a subtest of its own so
// a failure is itemized; later steps go on after a failed one.
func TestKubectlFull(t *testing.T) {
	def, err := exec.LookPath("kubectl")
	if err != nil {
		t.Fatalf("kubectl is required: %v", err)
	}
	resolved, err := filepath.EvalSymlinks(def)
	if err != nil {
		t.Fatal(err)
	}
	type binary struct {
		name  string // subtest name
		tag   string // in namespace and group names
		bin   string
		minor int // 0: any
	}
	bins := []binary{{name: "default", tag: "default", bin: def}}
	for _, minor := range fullKubectlMinors {
		bin := filepath.Join(filepath.Dir(resolved), fmt.Sprintf("kubectl.1.%d", minor))
		if fi, err := os.Stat(bin); err != nil || fi.IsDir() {
			t.Fatalf("kubectl 1.%d is required at %s (%v)", minor, bin, err)
		}
		bins = append(bins, binary{name: fmt.Sprintf("1.%d", minor), tag: fmt.Sprint(minor), bin: bin, minor: minor})
	}

	srv := startFreshServer(t)
	for _, b := range bins {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			e := &fullEnv{
				k:     newKubectl(t, b.bin, srv),
				ns:    "kubectl-full-" + b.tag,
				group: "full" + b.tag + ".example.com",
			}
			if b.minor != 0 {
				checkClientMinor(t, e.k, b.minor)
			}
			e.k.ok(t, "create", "namespace", e.ns)
			runFullSteps(t, e)
		})
	}
}

// runFullSteps runs the numbered steps in order.
func runFullSteps(t *testing.T, e *fullEnv) {
	for _, s := range []struct {
		name string
		fn   func(*testing.T, *fullEnv)
	}{
		{"01_crd", fullCRD},
		{"02_explain", fullExplain},
		{"03_apply_client_side", fullApplyClientSide},
		{"04_unknown_fields", fullUnknownFields},
		{"05_schema", fullSchema},
		{"06_apply_server_side", fullApplyServerSide},
		{"07_edit", fullEdit},
		{"08_patch", fullPatch},
		{"09_describe", fullDescribe},
		{"10_wait", fullWait},
		{"11_get", fullGet},
		{"12_label_annotate", fullLabelAnnotate},
		{"13_diff", fullDiff},
		{"14_auth_whoami", fullWhoami},
		{"15_cascade_foreground", fullCascadeForeground},
		{"16_scale_versions_selectors", fullScaleVersionsSelectors},
		{"17_dry_run", fullDryRun},
	} {
		t.Run(s.name, func(t *testing.T) { s.fn(t, e) })
	}
}

// checkClientMinor fails the test unless k is kubectl 1.minor.
func checkClientMinor(t *testing.T, k *kubectl, minor int) {
	t.Helper()
	var v struct {
		ClientVersion struct{ Major, Minor string }
	}
	out := k.ok(t, "version", "--client", "-o", "json")
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("kubectl version --client -o json: %v\n%s", err, out)
	}
	got := v.ClientVersion.Major + "." + strings.TrimSuffix(v.ClientVersion.Minor, "+")
	if want := fmt.Sprintf("1.%d", minor); got != want {
		t.Fatalf("%s is kubectl %s, want %s", k.bin, got, want)
	}
}
