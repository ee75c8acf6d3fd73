package e2e_test

import (
	"strings"
	"testing"
)

// fullPatch is step 8: kubectl patch of each type on a ConfigMap and a
// Widget; a strategic merge patch of a Widget is refused (415) naming the
// patch types a custom resource accepts.
func fullPatch(t *testing.T, e *fullEnv) {
	e.seed(t, configMapYAML(e.ns, "patched", nil, map[string]string{"a": "1"}))
	e.seed(t, e.widgetYAML("patched", map[string]any{"replicas": 2, "mode": "a"}))
	widget := e.widget("patched")

	for _, tc := range []struct {
		name    string
		ref     string
		flags   []string
		wantErr []string // in stderr; the patch must fail
		path    string   // read back afterwards
		want    string   // as JSON
	}{
		{"configmap strategic", "configmap/patched", []string{"--type=strategic", "-p", `{"data":{"b":"2"}}`}, nil, "data", `{"a":"1","b":"2"}`},
		{"configmap merge", "configmap/patched", []string{"--type=merge", "-p", `{"data":{"a":null}}`}, nil, "data", `{"b":"2"}`},
		{"configmap json", "configmap/patched", []string{"--type=json", "-p", `[{"op":"add","path":"/data/c","value":"3"}]`}, nil, "data", `{"b":"2","c":"3"}`},
		{"widget merge", widget, []string{"--type=merge", "-p", `{"spec":{"mode":"b","tags":["x","y"]}}`}, nil, "spec", `{"mode":"b","replicas":2,"tags":["x","y"]}`},
		{"widget json", widget, []string{"--type=json", "-p", `[{"op":"replace","path":"/spec/replicas","value":4}]`}, nil, "spec", `{"mode":"b","replicas":4,"tags":["x","y"]}`},
		{"widget merge invalid", widget, []string{"--type=merge", "-p", `{"spec":{"replicas":11}}`}, []string{"is invalid", "spec.replicas"}, "spec", `{"mode":"b","replicas":4,"tags":["x","y"]}`},
		{"widget strategic", widget, []string{"--type=strategic", "-p", `{"spec":{"replicas":5}}`},
			// kubectl rewords the 415 UnsupportedMediaType.
			[]string{"application/strategic-merge-patch+json is not supported by", "application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml"},
			"spec", `{"mode":"b","replicas":4,"tags":["x","y"]}`},
	} {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			args := append([]string{"patch", tc.ref}, tc.flags...)
			if tc.wantErr != nil {
				wantContains(t, "kubectl patch stderr", e.fails(t, args...), tc.wantErr...)
			} else if out, want := e.ok(t, args...), tc.ref+" patched\n"; out != want {
				t.Errorf("kubectl patch: %q, want %q", out, want)
			}
			if got := mustJSON(field(e.getJSON(t, tc.ref), tc.path)); got != tc.want {
				t.Errorf("%s %s, want %s", tc.path, got, tc.want)
			}
		})
	}
}
