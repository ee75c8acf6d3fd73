package apiserver_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestApplyDuplicateKeys applies YAML that sets a key twice: Strict is a
// 400 with kube-apiserver's message naming the line, Warn stores the
// last value with a warning per key, Ignore stores it silently. Each
// case runs on an absent object (create) and a present one (update).
func TestApplyDuplicateKeys(t *testing.T) {
	c := newClient(t)
	c.createNamespace("demo")
	const cms = "/api/v1/namespaces/demo/configmaps/"
	const dup = "apiVersion: v1\nkind: ConfigMap\ndata:\n  foo: a\n  foo: b\n  bar: c\n  bar: d\n"
	tests := []struct {
		name         string
		validation   string
		wantCode     int
		wantMessage  string
		wantWarnings []string
	}{
		{"strict", "Strict", http.StatusBadRequest,
			"error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 5: key \"foo\" already set in map\n  line 7: key \"bar\" already set in map", nil},
		{"warn", "Warn", http.StatusOK, "", []string{`line 5: key "foo" already set in map`, `line 7: key "bar" already set in map`}},
		{"default is warn", "", http.StatusOK, "", []string{`line 5: key "foo" already set in map`, `line 7: key "bar" already set in map`}},
		{"ignore", "Ignore", http.StatusOK, "", nil},
	}
	for _, tt := range tests {
		for _, existing := range []bool{false, true} {
			name := tt.name + " create"
			obj := "new-" + strings.ReplaceAll(tt.name, " ", "-")
			if existing {
				name = tt.name + " update"
				obj = "old-" + strings.ReplaceAll(tt.name, " ", "-")
				c.must(http.StatusCreated, "POST", "/api/v1/namespaces/demo/configmaps", configMap("demo", obj, nil))
			}
			t.Run(name, func(t *testing.T) {
				q := "?fieldManager=m"
				if tt.validation != "" {
					q += "&fieldValidation=" + tt.validation
				}
				r := c.do("PATCH", cms+obj+q, dup, "Content-Type", "application/apply-patch+yaml")
				want := tt.wantCode
				if want == http.StatusOK && !existing {
					want = http.StatusCreated
				}
				if r.code != want {
					t.Fatalf("got %d, want %d: %s", r.code, want, r.body)
				}
				if tt.wantMessage != "" {
					if st := r.json(t); st["message"] != tt.wantMessage || st["reason"] != "BadRequest" {
						t.Errorf("got %v %q, want BadRequest %q", st["reason"], st["message"], tt.wantMessage)
					}
					return
				}
				if got, want := mustJSON(r.json(t)["data"]), `{"bar":"d","foo":"b"}`; got != want {
					t.Errorf("data %s, want %s", got, want)
				}
				var warnings []string
				for _, w := range r.header.Values("Warning") {
					warnings = append(warnings, strings.Trim(strings.TrimPrefix(w, "299 - "), `"`))
				}
				var wantWarnings []string
				for _, w := range tt.wantWarnings {
					wantWarnings = append(wantWarnings, strings.ReplaceAll(w, `"`, `\"`))
				}
				if !slices.Equal(warnings, wantWarnings) {
					t.Errorf("warnings %q, want %q", warnings, wantWarnings)
				}
			})
		}
	}
}
