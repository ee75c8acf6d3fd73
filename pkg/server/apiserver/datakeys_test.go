package apiserver_test

import (
	"net/http"
	"testing"
)

// TestDataKeyValidation sends ConfigMaps and Secrets with keys
// kube-apiserver refuses: each is a 422 naming the key's field, on
// create and on update.
func TestDataKeyValidation(t *testing.T) {
	c := newClient(t)
	c.createNamespace("keys")
	const base = "/api/v1/namespaces/keys/"
	c.must(http.StatusCreated, "POST", base+"secrets", map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "s"}})
	c.must(http.StatusCreated, "POST", base+"configmaps", configMap("keys", "cm", nil))
	tests := []struct {
		name, method, path string
		body               map[string]any
		wantCode           int
		wantField          string
		wantMessage        string
	}{
		{"secret empty key", "POST", base + "secrets", map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "e"}, "data": map[string]any{"": "eA=="}},
			422, "data[]", `Secret "e" is invalid: data[]: Invalid value: "": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`},
		{"secret empty stringData key on update", "PUT", base + "secrets/s", map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "s"}, "stringData": map[string]any{"": "x"}},
			422, "data[]", ""},
		{"configmap empty key", "POST", base + "configmaps", configMap("keys", "e", map[string]any{"": "x"}), 422, "data[]", ""},
		{"configmap key in data and binaryData on update", "PUT", base + "configmaps/cm", map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "cm"}, "data": map[string]any{"k": "x"}, "binaryData": map[string]any{"k": "eA=="}},
			422, "data[k]", `ConfigMap "cm" is invalid: data[k]: Invalid value: "k": duplicate of key present in binaryData`},
		{"configmap good keys", "POST", base + "configmaps", configMap("keys", "good", map[string]any{"a.b": "x", "C_d-1": "y"}), 201, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.do(tt.method, tt.path, tt.body)
			if r.code != tt.wantCode {
				t.Fatalf("got %d, want %d: %s", r.code, tt.wantCode, r.body)
			}
			if tt.wantCode != 422 {
				return
			}
			st := r.json(t)
			if tt.wantMessage != "" && st["message"] != tt.wantMessage {
				t.Errorf("message\n got %v\nwant %s", st["message"], tt.wantMessage)
			}
			details, _ := st["details"].(map[string]any)
			causes, _ := details["causes"].([]any)
			if len(causes) != 1 || causes[0].(map[string]any)["field"] != tt.wantField {
				t.Errorf("causes %v, want one on field %s", causes, tt.wantField)
			}
		})
	}
}
