package e2e_test

import (
	"regexp"
	"slices"
	"testing"
)

// fullDescribe is step 9: kubectl describe of a Widget and a ConfigMap.
func fullDescribe(t *testing.T, e *fullEnv) {
	labels := map[string]string{"app": "full"}
	t.Run("widget", func(t *testing.T) {
		e.seed(t, e.widgetYAMLAt("v1", "described", labels, map[string]any{"replicas": 3, "mode": "b", "name": "shown"}))
		out := e.ok(t, "describe", e.widget("described"))
		wantLines(t, "kubectl describe widget", out,
			`Name:\s+described`, `Namespace:\s+`+regexp.QuoteMeta(e.ns), `Labels:\s+app=full`,
			`Kind:\s+Widget`, `Spec:`, `\s+Mode:\s+b`, `\s+Name:\s+shown`, `\s+Replicas:\s+3`)
	})
	t.Run("configmap", func(t *testing.T) {
		e.seed(t, configMapYAML(e.ns, "described", labels, map[string]string{"color": "blue"}))
		out := e.ok(t, "describe", "configmap", "described")
		wantLines(t, "kubectl describe configmap", out,
			`Name:\s+described`, `Namespace:\s+`+regexp.QuoteMeta(e.ns), `Labels:\s+app=full`,
			`Data`, `color:`, `blue`)
	})
}

// wantLines reports each regexp that matches no whole line of out.
func wantLines(t *testing.T, what, out string, res ...string) {
	t.Helper()
	for _, re := range res {
		if !regexp.MustCompile(`(?m)^` + re + `$`).MatchString(out) {
			t.Errorf("%s has no line matching %q:\n%s", what, re, out)
		}
	}
}

// fullGet is step 11: kubectl get of a Widget as a table (the priority 1
// column only with -o wide), YAML, JSON and JSONPath, and as a watch.
func fullGet(t *testing.T, e *fullEnv) {
	e.seed(t, e.widgetYAML("listed", map[string]any{"replicas": 2, "mode": "a", "name": "alias-one"}))
	ref := e.widget("listed")

	t.Run("table", func(t *testing.T) {
		for _, tc := range []struct {
			flags  []string
			header []string
		}{
			{nil, []string{"NAME", "REPLICAS", "MODE", "AGE"}},
			{[]string{"-o", "wide"}, []string{"NAME", "REPLICAS", "MODE", "ALIAS", "AGE"}},
		} {
			tb := parseTable(t, e.ok(t, append([]string{"get", ref}, tc.flags...)...))
			if !slices.Equal(tb.header, tc.header) {
				t.Errorf("get %v: header %q, want %q", tc.flags, tb.header, tc.header)
			}
			want := map[string]string{"NAME": "listed", "REPLICAS": "2", "MODE": "a"}
			if len(tc.flags) > 0 {
				want["ALIAS"] = "alias-one"
			}
			if _, ok := tb.row(want); !ok || len(tb.rows) != 1 || !isYoungAge(tb.rows[0]["AGE"]) {
				t.Errorf("get %v: rows %v, want one with %v", tc.flags, tb.rows, want)
			}
		}
	})

	t.Run("json yaml jsonpath", func(t *testing.T) {
		obj := e.getJSON(t, ref)
		for path, want := range map[string]string{
			"apiVersion": e.group + "/v1", "kind": "Widget",
			"metadata.name": "listed", "metadata.namespace": e.ns, "spec.mode": "a",
		} {
			if got := str(obj, path); got != want {
				t.Errorf("-o json %s = %q, want %q", path, got, want)
			}
		}
		e.k.yamlMatches(t, obj, e.nsArgs([]string{"get", ref})...)
		if got := e.ok(t, "get", ref, "-o", "jsonpath={.spec.replicas}"); got != "2" {
			t.Errorf("-o jsonpath={.spec.replicas}: %q, want 2", got)
		}
	})

	t.Run("watch", func(t *testing.T) {
		w := e.k.start(t, longTimeout, e.nsArgs([]string{"get", e.widgets(), "-l", "watched=yes", "-w"})...)
		e.seed(t, e.widgetYAMLAt("v1", "watched", map[string]string{"watched": "yes"}, map[string]any{"replicas": 1, "mode": "a"}))
		w.waitLine(t, "watched", "1", "a")
		e.ok(t, "patch", e.widget("watched"), "--type=merge", "-p", `{"spec":{"replicas":2}}`)
		w.waitLine(t, "watched", "2", "a")
		w.stop()
		if header := w.seen[0]; !regexp.MustCompile(`^NAME\s+REPLICAS\s+MODE\s+AGE$`).MatchString(header) {
			t.Errorf("watch header %q, want NAME REPLICAS MODE AGE", header)
		}
	})
}
