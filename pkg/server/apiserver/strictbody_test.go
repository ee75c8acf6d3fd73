package apiserver_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestStrictBodies checks create and update bodies with duplicate keys
// (in YAML, which JSON conversion would hide, and in JSON) and unknown
// fields against kube-apiserver's answers: a 400 under Strict worded
// "<Kind> in version ... cannot be handled as a <Kind>: strict decoding
// error: ...", YAML problems first, and warnings under Warn.
func TestStrictBodies(t *testing.T) {
	c := newClient(t)
	c.createNamespace("demo")
	c.must(http.StatusCreated, "POST", "/api/v1/namespaces/demo/configmaps", configMap("demo", "existing", nil))
	const (
		cms      = "/api/v1/namespaces/demo/configmaps"
		yamlType = "application/yaml"
		jsonType = "application/json"
	)
	yamlDup := func(name string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\ndata:\n  foo: a\n  foo: b\n"
	}
	tests := []struct {
		name, method, path, contentType, body string
		wantCode                              int
		wantMessage                           string
		wantWarnings                          []string
	}{
		{"YAML duplicate, Strict", "POST", cms + "?fieldValidation=Strict", yamlType, yamlDup("y1"), 400,
			`ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: yaml: unmarshal errors:` + "\n" + `  line 7: key "foo" already set in map`, nil},
		{"YAML duplicate and unknown field, Strict", "POST", cms + "?fieldValidation=Strict", yamlType, yamlDup("y2") + "bogus: 1\n", 400,
			`ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: yaml: unmarshal errors:` + "\n" + `  line 7: key "foo" already set in map, unknown field "bogus"`, nil},
		{"YAML duplicate on update, Strict", "PUT", cms + "/existing?fieldValidation=Strict", yamlType, yamlDup("existing"), 400,
			`ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: yaml: unmarshal errors:` + "\n" + `  line 7: key "foo" already set in map`, nil},
		{"JSON duplicate and unknown field, Strict", "POST", cms + "?fieldValidation=Strict", jsonType, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"j1"},"data":{"foo":"a","foo":"b"},"bogus":1}`, 400,
			`ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "data.foo", unknown field "bogus"`, nil},
		{"YAML duplicate, Warn", "POST", cms, yamlType, yamlDup("y3"), 201, "", []string{`line 7: key "foo" already set in map`}},
		{"YAML duplicate, Ignore", "POST", cms + "?fieldValidation=Ignore", yamlType, yamlDup("y4"), 201, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.do(tt.method, tt.path, tt.body, "Content-Type", tt.contentType)
			if r.code != tt.wantCode {
				t.Fatalf("got %d, want %d: %s", r.code, tt.wantCode, r.body)
			}
			if tt.wantMessage != "" {
				if st := r.json(t); st["message"] != tt.wantMessage || st["reason"] != "BadRequest" {
					t.Errorf("got %v %q\nwant BadRequest %q", st["reason"], st["message"], tt.wantMessage)
				}
				return
			}
			var warnings []string
			for _, w := range r.header.Values("Warning") {
				warnings = append(warnings, strings.ReplaceAll(strings.Trim(strings.TrimPrefix(w, "299 - "), `"`), `\"`, `"`))
			}
			if !slices.Equal(warnings, tt.wantWarnings) {
				t.Errorf("warnings %q, want %q", warnings, tt.wantWarnings)
			}
		})
	}
}
