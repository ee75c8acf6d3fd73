package e2e_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"testing"
)

const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// fullApplyClientSide is step 3: kubectl apply -f creates, configures and,
// through last-applied-configuration, prunes a field removed from the
// manifest, for a Widget (merge patch) and a ConfigMap (strategic merge
// patch).
func fullApplyClientSide(t *testing.T, e *fullEnv) {
	t.Run("widget", func(t *testing.T) {
		steps := []struct {
			spec    map[string]any
			wantOut string
		}{
			{map[string]any{"replicas": 2, "mode": "a", "name": "first", "tags": []string{"x"}}, "created"},
			{map[string]any{"replicas": 3, "mode": "a", "name": "first", "tags": []string{"x"}}, "configured"},
			{map[string]any{"replicas": 3, "mode": "a", "tags": []string{"x"}}, "configured"}, // name removed
			{map[string]any{"replicas": 3, "mode": "a", "tags": []string{"x"}}, "unchanged"},
		}
		for i, s := range steps {
			out := e.mustApply(t, e.widgetYAML("applied", s.spec))
			if want := e.widget("applied") + " " + s.wantOut + "\n"; out != want {
				t.Errorf("apply %d: %q, want %q", i, out, want)
			}
			obj := e.getJSON(t, e.widget("applied"))
			if got, want := mustJSON(field(obj, "spec")), mustJSON(s.spec); got != want {
				t.Errorf("apply %d: spec %s, want %s", i, got, want)
			}
			if ann := stringMap(field(obj, "metadata.annotations")); !strings.Contains(ann[lastApplied], `"replicas":`) {
				t.Errorf("apply %d: annotation %s = %q, want the applied manifest", i, lastApplied, ann[lastApplied])
			}
		}
	})

	t.Run("configmap", func(t *testing.T) {
		steps := []struct {
			labels, data map[string]string
			wantOut      string
		}{
			{map[string]string{"app": "full", "tier": "web"}, map[string]string{"a": "1", "b": "2"}, "created"},
			{map[string]string{"app": "full", "tier": "web"}, map[string]string{"a": "1", "b": "20"}, "configured"},
			{map[string]string{"app": "full"}, map[string]string{"b": "20"}, "configured"}, // a and tier removed
			{map[string]string{"app": "full"}, map[string]string{"b": "20"}, "unchanged"},
		}
		for i, s := range steps {
			out := e.mustApply(t, configMapYAML(e.ns, "applied", s.labels, s.data))
			if want := "configmap/applied " + s.wantOut + "\n"; out != want {
				t.Errorf("apply %d: %q, want %q", i, out, want)
			}
			obj := e.getJSON(t, "configmap", "applied")
			if got := stringMap(obj["data"]); !maps.Equal(got, s.data) {
				t.Errorf("apply %d: data %v, want %v", i, got, s.data)
			}
			if got := stringMap(field(obj, "metadata.labels")); !maps.Equal(got, s.labels) {
				t.Errorf("apply %d: labels %v, want %v", i, got, s.labels)
			}
			if ann := stringMap(field(obj, "metadata.annotations")); !strings.Contains(ann[lastApplied], `"data":`) {
				t.Errorf("apply %d: annotation %s = %q, want the applied manifest", i, lastApplied, ann[lastApplied])
			}
		}
	})
}

// fullApplyServerSide is step 6: kubectl apply --server-side creates and
// updates with the field manager kubectl, detects a conflict with another
// manager and moves ownership with --force-conflicts.
func fullApplyServerSide(t *testing.T, e *fullEnv) {
	for _, tc := range []struct {
		name     string
		manifest func(n int) string // with the contested field set to n
		ref      string             // TYPE/NAME in kubectl's output
		path     []string           // the contested field in fieldsV1
		conflict string             // the field as a conflict names it
		value    func(obj map[string]any) any
	}{
		{
			name: "widget",
			manifest: func(n int) string {
				return e.widgetYAML("ssa", map[string]any{"replicas": n, "mode": "a"})
			},
			ref:      e.widget("ssa"),
			path:     []string{"f:spec", "f:replicas"},
			conflict: ".spec.replicas",
			value:    func(obj map[string]any) any { return field(obj, "spec.replicas") },
		},
		{
			name:     "configmap",
			manifest: func(n int) string { return configMapYAML(e.ns, "ssa", nil, map[string]string{"k": fmt.Sprint(n)}) },
			ref:      "configmap/ssa",
			path:     []string{"f:data", "f:k"},
			conflict: ".data.k",
			value:    func(obj map[string]any) any { return field(obj, "data.k") },
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// kubectl hides managedFields unless asked.
			get := func() map[string]any { return e.getJSON(t, tc.ref, "--show-managed-fields") }
			wantValue := func(n int) {
				t.Helper()
				if got := fmt.Sprint(tc.value(get())); got != fmt.Sprint(n) {
					t.Errorf("%s = %s, want %d", tc.conflict, got, n)
				}
			}
			wantOwner := func(manager string) {
				t.Helper()
				obj := get()
				m, op := owner(managedFields(t, obj), tc.path...)
				if m != manager || op != "Apply" {
					t.Errorf("%s owned by %q (%q), want %q (Apply); managedFields %s", tc.conflict, m, op, manager, mustJSON(field(obj, "metadata.managedFields")))
				}
			}

			for _, n := range []int{2, 3} { // create, then change
				out := e.mustApply(t, tc.manifest(n), "--server-side")
				if want := tc.ref + " serverside-applied\n"; out != want {
					t.Errorf("apply --server-side with %d: %q, want %q", n, out, want)
				}
				wantValue(n)
				wantOwner("kubectl")
			}

			r := e.apply(t, tc.manifest(4), "--server-side", "--field-manager=other")
			if r.err == nil {
				t.Errorf("a second manager changing %s succeeded, want a conflict: %v", tc.conflict, r)
			}
			wantContains(t, "conflicting apply", r.stderr, "conflict", `conflict with "kubectl"`, tc.conflict)
			wantValue(3)

			out := e.mustApply(t, tc.manifest(4), "--server-side", "--field-manager=other", "--force-conflicts")
			if want := tc.ref + " serverside-applied\n"; out != want {
				t.Errorf("apply --server-side --force-conflicts: %q, want %q", out, want)
			}
			wantValue(4)
			wantOwner("other")
		})
	}
}

// managedEntry is one entry of metadata.managedFields.
type managedEntry struct {
	Manager     string         `json:"manager"`
	Operation   string         `json:"operation"`
	Subresource string         `json:"subresource"`
	FieldsV1    map[string]any `json:"fieldsV1"`
}

func managedFields(t *testing.T, obj map[string]any) []managedEntry {
	t.Helper()
	var out []managedEntry
	if err := json.Unmarshal([]byte(mustJSON(field(obj, "metadata.managedFields"))), &out); err != nil {
		t.Fatalf("metadata.managedFields: %v", err)
	}
	return out
}

// owner returns the manager and operation whose fieldsV1 holds the field
// at path (as "f:spec", "f:replicas"), or "" if none does.
func owner(entries []managedEntry, path ...string) (manager, operation string) {
	for _, m := range entries {
		var cur any = m.FieldsV1
		for _, p := range path {
			obj, _ := cur.(map[string]any)
			cur = obj[p]
		}
		if cur != nil {
			return m.Manager, m.Operation
		}
	}
	return "", ""
}
