package e2e_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// longTimeout bounds a kubectl command that waits for something, such as
// kubectl wait; generous, since it bounds a failure, not a success.
const longTimeout = 2 * time.Minute

// fullEnv is one kubectl binary's share of TestKubectlFull: its kubectl,
// its namespace and the group of its Widget CRD.
type fullEnv struct {
	k     *kubectl
	ns    string
	group string
}

// widgets is the Widget resource, qualified by group: another binary's
// CRD has the same plural in another group.
func (e *fullEnv) widgets() string { return "widgets." + e.group }

// widget is TYPE/NAME of one Widget, as kubectl takes it and names it in
// its messages.
func (e *fullEnv) widget(name string) string { return "widget." + e.group + "/" + name }

// nsArgs appends the namespace flag to args.
func (e *fullEnv) nsArgs(args []string) []string {
	return append(append([]string(nil), args...), "-n", e.ns)
}

// ok, fails, run and getJSON are kubectl's helpers in e's namespace.
func (e *fullEnv) ok(t *testing.T, args ...string) string {
	t.Helper()
	return e.k.ok(t, e.nsArgs(args)...)
}

func (e *fullEnv) fails(t *testing.T, args ...string) string {
	t.Helper()
	return e.k.fails(t, e.nsArgs(args)...)
}

func (e *fullEnv) run(t *testing.T, args ...string) result {
	t.Helper()
	return e.k.run(t, e.nsArgs(args)...)
}

func (e *fullEnv) getJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	return e.k.getJSON(t, e.nsArgs(args)...)
}

// runEnv runs kubectl in e's namespace with extra environment variables
// (which command would otherwise not pass, as for KUBECTL_*), bounded by
// timeout (kubectlTimeout if zero).
func (e *fullEnv) runEnv(t *testing.T, env []string, timeout time.Duration, args ...string) result {
	t.Helper()
	if timeout == 0 {
		timeout = kubectlTimeout
	}
	args = e.nsArgs(args)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var stdout, stderr strings.Builder
	cmd := e.k.command(ctx, args...)
	cmd.Env = append(cmd.Env, env...) // later entries win
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("%w (timed out after %v)", err, timeout)
	}
	return result{args: args, stdout: stdout.String(), stderr: stderr.String(), err: err}
}

// apply writes manifest to a file and runs kubectl apply -f on it with
// flags.
func (e *fullEnv) apply(t *testing.T, manifest string, flags ...string) result {
	t.Helper()
	return e.run(t, append([]string{"apply", "-f", writeFile(t, "manifest.yaml", manifest)}, flags...)...)
}

// mustApply is apply that fails the test unless it succeeds; it returns
// stdout.
func (e *fullEnv) mustApply(t *testing.T, manifest string, flags ...string) string {
	t.Helper()
	r := e.apply(t, manifest, flags...)
	if r.err != nil {
		t.Fatal(r)
	}
	return r.stdout
}

// seed creates the object of manifest (a ConfigMap, Widget or CRD) by
// POSTing it with kubectl create --raw, for a step whose subject is not
// creating it: that goes without kubectl's client-side machinery
// (validation, apply), which steps 3 to 6 test, so that a failure there
// does not hide what later steps test.
func (e *fullEnv) seed(t *testing.T, manifest string) {
	t.Helper()
	if r := e.rawCreate(t, manifest, ""); r.err != nil {
		t.Fatal(r)
	}
}

// rawCreate runs kubectl create --raw with manifest as JSON, POSTing it to
// its collection with query (such as "?fieldValidation=Strict").
func (e *fullEnv) rawCreate(t *testing.T, manifest, query string) result {
	t.Helper()
	body, err := yaml.YAMLToJSON([]byte(manifest))
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := json.Unmarshal(body, &obj); err != nil {
		t.Fatal(err)
	}
	var path string
	switch kind := str(obj, "kind"); kind {
	case "ConfigMap":
		path = "/api/v1/namespaces/" + e.ns + "/configmaps"
	case "Widget":
		path = "/apis/" + str(obj, "apiVersion") + "/namespaces/" + e.ns + "/widgets"
	case "CustomResourceDefinition":
		path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
	default:
		t.Fatalf("rawCreate: kind %q", kind)
	}
	return e.k.run(t, "create", "--raw", path+query, "-f", writeFile(t, "raw.json", string(body)))
}

// seedApplied is seed of an object as kubectl apply -f of manifest would
// have created it: with the manifest as last-applied-configuration.
func (e *fullEnv) seedApplied(t *testing.T, manifest string) {
	t.Helper()
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(manifest), &obj); err != nil {
		t.Fatal(err)
	}
	meta, _ := obj["metadata"].(map[string]any)
	meta["annotations"] = map[string]any{lastApplied: mustJSON(obj) + "\n"}
	e.seed(t, toYAML(obj))
}

// widgetYAML is a v1 Widget manifest in e's namespace.
func (e *fullEnv) widgetYAML(name string, spec map[string]any) string {
	return e.widgetYAMLAt("v1", name, nil, spec)
}

// widgetYAMLAt is a Widget manifest at version with labels.
func (e *fullEnv) widgetYAMLAt(version, name string, labels map[string]string, spec map[string]any) string {
	meta := map[string]any{"name": name, "namespace": e.ns}
	if len(labels) > 0 {
		meta["labels"] = labels
	}
	obj := map[string]any{"apiVersion": e.group + "/" + version, "kind": "Widget", "metadata": meta}
	if spec != nil {
		obj["spec"] = spec
	}
	return toYAML(obj)
}

// toYAML marshals obj.
func toYAML(obj any) string {
	b, err := yaml.Marshal(obj)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// exitCode is the exit code of a finished kubectl, -1 if it did not run
// to one.
func exitCode(r result) int {
	if r.err == nil {
		return 0
	}
	var exit *exec.ExitError
	if errors.As(r.err, &exit) {
		return exit.ExitCode()
	}
	return -1
}

// wantContains reports, in one error, which of wants got lacks.
func wantContains(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	var missing []string
	for _, w := range wants {
		if !strings.Contains(got, w) {
			missing = append(missing, w)
		}
	}
	if len(missing) > 0 {
		t.Errorf("%s lacks %q:\n%s", what, missing, got)
	}
}

// wantNotFound fails the test unless kubectl get args reports NotFound.
func (e *fullEnv) wantNotFound(t *testing.T, args ...string) {
	t.Helper()
	r := e.run(t, append([]string{"get"}, args...)...)
	if r.err == nil || !strings.Contains(r.stderr, "NotFound") {
		t.Errorf("want NotFound: %v", r)
	}
}

// num is a JSON number field as a float64, and whether it is one.
func num(obj map[string]any, path string) (float64, bool) {
	f, ok := field(obj, path).(float64)
	return f, ok
}
