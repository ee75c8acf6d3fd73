package e2e_test

import (
	"strings"
	"testing"
)

// fullDryRun is step 17: --dry-run=server on create, apply (client- and
// server-side), patch and delete answers as if done, still validates, and
// changes nothing.
func fullDryRun(t *testing.T, e *fullEnv) {
	e.seed(t, e.widgetYAML("dry", map[string]any{"replicas": 2, "mode": "a"}))
	e.seed(t, configMapYAML(e.ns, "dry", nil, map[string]string{"a": "1"}))
	ref := e.widget("dry")
	unchanged := func(t *testing.T) {
		t.Helper()
		if got, want := mustJSON(field(e.getJSON(t, ref), "spec")), `{"mode":"a","replicas":2}`; got != want {
			t.Errorf("widget spec %s after a dry run, want %s", got, want)
		}
		if got, want := mustJSON(field(e.getJSON(t, "configmap/dry"), "data")), `{"a":"1"}`; got != want {
			t.Errorf("configmap data %s after a dry run, want %s", got, want)
		}
	}
	changed := e.widgetYAML("dry", map[string]any{"replicas": 5, "mode": "a"})

	for _, tc := range []struct {
		name    string
		args    []string
		wantOut string
		gone    []string // objects that must not exist afterwards
	}{
		{"create widget", []string{"create", "-f", writeFile(t, "new.yaml", e.widgetYAML("dry-new", map[string]any{"mode": "a"}))},
			e.widget("dry-new") + " created (server dry run)", []string{e.widget("dry-new")}},
		{"create configmap", []string{"create", "configmap", "dry-new", "--from-literal=a=1"},
			"configmap/dry-new created (server dry run)", []string{"configmap/dry-new"}},
		{"apply", []string{"apply", "-f", writeFile(t, "changed.yaml", changed)},
			ref + " configured (server dry run)", nil},
		{"apply server-side", []string{"apply", "--server-side", "--force-conflicts", "-f", writeFile(t, "changed.yaml", changed)},
			ref + " serverside-applied (server dry run)", nil},
		{"patch widget", []string{"patch", ref, "--type=merge", "-p", `{"spec":{"replicas":5}}`},
			ref + " patched\n", nil}, // kubectl patch does not say "(server dry run)"
		{"patch configmap", []string{"patch", "configmap/dry", "-p", `{"data":{"a":"2"}}`},
			"configmap/dry patched\n", nil},
		{"delete widget", []string{"delete", ref},
			`widget.` + e.group + ` "dry" deleted (server dry run)`, nil},
		{"delete configmap", []string{"delete", "configmap/dry"},
			`configmap "dry" deleted (server dry run)`, nil},
	} {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			out := e.ok(t, append(tc.args, "--dry-run=server")...)
			if !strings.HasPrefix(out, tc.wantOut) {
				t.Errorf("kubectl %s --dry-run=server: %q, want %q", strings.Join(tc.args, " "), out, tc.wantOut)
			}
			for _, ref := range tc.gone {
				e.wantNotFound(t, ref)
			}
			unchanged(t)
		})
	}

	t.Run("validates", func(t *testing.T) {
		r := e.run(t, "apply", "-f", writeFile(t, "bad.yaml", e.widgetYAML("dry", map[string]any{"replicas": 11, "mode": "b"})), "--dry-run=server")
		if r.err == nil {
			t.Errorf("dry run of an invalid apply succeeded: %v", r)
		}
		wantContains(t, "dry run of an invalid apply", r.stderr, "is invalid", "spec.replicas")
		r = e.run(t, "patch", ref, "--type=merge", "-p", `{"spec":{"replicas":11}}`, "--dry-run=server")
		if r.err == nil {
			t.Errorf("dry run of an invalid patch succeeded: %v", r)
		}
		wantContains(t, "dry run of an invalid patch", r.stderr, "is invalid", "spec.replicas")
		unchanged(t)
	})
}
