package e2e_test

import (
	"strings"
	"testing"
)

// fullUnknownFields is step 4: an unknown field fails kubectl apply under
// the default --validate=strict, warns under --validate=warn and passes
// silently under --validate=ignore; it is never stored. The server's own
// field validation, which kubectl relies on, is checked by POSTs too.
func fullUnknownFields(t *testing.T, e *fullEnv) {
	for _, tc := range []struct {
		kind     string
		manifest func(name string) string
		ref      func(name string) string
		field    string // the unknown field's path in the object
	}{
		{
			kind: "widget",
			manifest: func(name string) string {
				return e.widgetYAML(name, map[string]any{"replicas": 2, "colour": "red"})
			},
			ref:   e.widget,
			field: "spec.colour",
		},
		{
			kind: "configmap",
			manifest: func(name string) string {
				return strings.Replace(configMapYAML(e.ns, name, nil, map[string]string{"a": "1"}), "\ndata:", "\ncolour: red\ndata:", 1)
			},
			ref:   func(name string) string { return "configmap/" + name },
			field: "colour",
		},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			// What kubectl relies on the server for when it supports
			// field validation: strict decoding, or a warning.
			r := e.rawCreate(t, tc.manifest("raw-strict"), "?fieldValidation=Strict")
			if r.err == nil {
				t.Errorf("POST ?fieldValidation=Strict with an unknown field succeeded: %v", r)
			}
			wantContains(t, "POST ?fieldValidation=Strict stderr", r.stderr, "unknown field", "colour")
			e.wantNotFound(t, tc.ref("raw-strict"))
			if r := e.rawCreate(t, tc.manifest("raw-warn"), "?fieldValidation=Warn"); r.err != nil {
				t.Errorf("POST ?fieldValidation=Warn: %v", r)
			} else {
				wantContains(t, "POST ?fieldValidation=Warn stderr", r.stderr, "Warning", "unknown field", "colour")
				if got := field(e.getJSON(t, tc.ref("raw-warn")), tc.field); got != nil {
					t.Errorf("POST ?fieldValidation=Warn stored the unknown field %s = %v", tc.field, got)
				}
			}

			for _, v := range []string{"strict", "warn", "ignore"} {
				name := "unknown-" + v
				var flags []string
				if v != "strict" {
					flags = []string{"--validate=" + v}
				}
				r := e.apply(t, tc.manifest(name), flags...)
				switch v {
				case "strict":
					if r.err == nil {
						t.Errorf("apply with an unknown field succeeded, want an error: %v", r)
					}
					wantContains(t, "apply (strict) stderr", r.stderr, "unknown field", "colour")
					e.wantNotFound(t, tc.ref(name))
					continue
				case "warn":
					if r.err != nil {
						t.Errorf("apply --validate=warn: %v", r)
						continue
					}
					wantContains(t, "apply --validate=warn stderr", r.stderr, "Warning", "unknown field", "colour")
				case "ignore":
					if r.err != nil {
						t.Errorf("apply --validate=ignore: %v", r)
						continue
					}
					if strings.Contains(r.stderr, "unknown field") {
						t.Errorf("apply --validate=ignore warned: %s", r.stderr)
					}
				}
				if want := tc.ref(name) + " created\n"; r.stdout != want {
					t.Errorf("apply --validate=%s: %q, want %q", v, r.stdout, want)
				}
				obj := e.getJSON(t, tc.ref(name))
				if got := field(obj, tc.field); got != nil {
					t.Errorf("apply --validate=%s stored the unknown field %s = %v", v, tc.field, got)
				}
			}
		})
	}
}

// fullSchema is step 5: the server rejects what the schema forbids, with
// 422 Invalid naming the field, whether kubectl apply creates the object or
// kubectl patch changes one; and it fills in defaults.
func fullSchema(t *testing.T, e *fullEnv) {
	e.seed(t, e.widgetYAML("schema-base", map[string]any{"replicas": 1, "mode": "a"}))
	base := e.widget("schema-base")
	const baseSpec = `{"mode":"a","replicas":1}`

	for _, tc := range []struct {
		name string
		spec map[string]any
		want []string // in stderr
	}{
		{"too-many", map[string]any{"replicas": 11, "mode": "b"}, []string{"spec.replicas", "10"}},
		{"negative", map[string]any{"replicas": -1}, []string{"spec.replicas", "0"}},
		{"bad-mode", map[string]any{"replicas": 1, "mode": "x"}, []string{"spec.mode", `"x"`, `"a"`, `"b"`}},
		{"bad-name", map[string]any{"name": "Not Valid"}, []string{"spec.name", "should match"}},
		{"dup-tags", map[string]any{"tags": []string{"t", "t"}}, []string{"spec.tags", "Duplicate value"}},
		{"cel", map[string]any{"replicas": 7, "mode": "a"}, []string{"spec", widgetCELMessage}},
		{"wrong-type", map[string]any{"replicas": "three"}, []string{"spec.replicas", "integer"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Run("apply", func(t *testing.T) {
				r := e.apply(t, e.widgetYAML(tc.name, tc.spec))
				if r.err == nil {
					t.Errorf("apply succeeded, want 422 Invalid: %v", r)
				} else {
					wantContains(t, "apply stderr", r.stderr, append([]string{`The Widget "` + tc.name + `" is invalid`}, tc.want...)...)
				}
				e.wantNotFound(t, e.widget(tc.name))
			})
			t.Run("patch", func(t *testing.T) {
				stderr := e.fails(t, "patch", base, "--type=merge", "-p", mustJSON(map[string]any{"spec": tc.spec}))
				wantContains(t, "patch stderr", stderr, append([]string{`The Widget "schema-base" is invalid`}, tc.want...)...)
				if got := mustJSON(field(e.getJSON(t, base), "spec")); got != baseSpec {
					t.Errorf("spec %s after a refused patch, want %s", got, baseSpec)
				}
			})
		})
	}

	t.Run("valid", func(t *testing.T) {
		// The CEL rule admits more than 5 replicas in mode b.
		if r := e.run(t, "patch", base, "--type=merge", "-p", `{"spec":{"replicas":7,"mode":"b"}}`); r.err != nil {
			t.Error(r)
		}
		e.mustApply(t, e.widgetYAML("cel-ok", map[string]any{"replicas": 7, "mode": "b", "name": "ok-name", "tags": []string{"t", "u"}}))
		if got, _ := num(e.getJSON(t, e.widget("cel-ok")), "spec.replicas"); got != 7 {
			t.Errorf("spec.replicas %v, want 7", got)
		}
	})

	t.Run("defaults", func(t *testing.T) {
		e.seed(t, e.widgetYAML("defaulted-raw", map[string]any{"mode": "a"}))
		if got, ok := num(e.getJSON(t, e.widget("defaulted-raw")), "spec.replicas"); !ok || got != 1 {
			t.Errorf("created by POST: spec.replicas %v, want the default 1", got)
		}
		e.mustApply(t, e.widgetYAML("defaulted", map[string]any{"mode": "a"}))
		if got, ok := num(e.getJSON(t, e.widget("defaulted")), "spec.replicas"); !ok || got != 1 {
			t.Errorf("created by kubectl apply: spec.replicas %v, want the default 1", got)
		}
	})
}
