package apiserver_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestBadInput sends malformed or refused requests: each gets a Status
// with the right code, nothing is stored, and the server keeps serving.
func TestBadInput(t *testing.T) {
	c := newClient(t)
	c.createNamespace("demo")
	c.must(http.StatusCreated, "POST", "/api/v1/namespaces/demo/configmaps", configMap("demo", "exists", nil))
	const cms = "/api/v1/namespaces/demo/configmaps"
	big := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big"},"data":{"a":"` + strings.Repeat("x", 3<<20) + `"}}`
	tests := []struct {
		name       string
		method     string
		path       string
		body       any
		headers    []string
		wantCode   int
		wantReason string
	}{
		{"malformed JSON", "POST", cms, `{"apiVersion":"v1",`, nil, 400, "BadRequest"},
		{"not an object", "POST", cms, `[1,2]`, nil, 400, "BadRequest"},
		{"malformed YAML", "POST", cms, "kind: [ConfigMap", []string{"Content-Type", "application/yaml"}, 400, "BadRequest"},
		{"wrong field type", "POST", cms, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"t"},"data":{"a":1}}`, nil, 400, "BadRequest"},
		{"kind mismatch", "POST", cms, `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"k"}}`, nil, 400, "BadRequest"},
		{"apiVersion mismatch", "POST", cms, `{"apiVersion":"apps/v1","kind":"ConfigMap","metadata":{"name":"k"}}`, nil, 400, "BadRequest"},
		{"namespace mismatch", "POST", cms, configMap("other", "n", nil), nil, 400, "BadRequest"},
		{"invalid name", "POST", cms, configMap("demo", "Not_Valid", nil), nil, 422, "Invalid"},
		{"missing name", "POST", cms, configMap("demo", "", nil), nil, 422, "Invalid"},
		{"invalid label", "POST", cms, map[string]any{"kind": "ConfigMap", "apiVersion": "v1", "metadata": map[string]any{"name": "l", "labels": map[string]any{"a b": "c"}}}, nil, 422, "Invalid"},
		{"body too large", "POST", cms, big, nil, 413, "RequestEntityTooLarge"},
		{"unknown query parameter", "GET", cms + "?bogus=1", nil, nil, 400, "BadRequest"},
		{"unsupported content type", "POST", cms, "x", []string{"Content-Type", "text/plain"}, 415, "UnsupportedMediaType"},
		{"apply without a field manager", "PATCH", cms + "/exists", `{}`, []string{"Content-Type", "application/apply-patch+yaml"}, 422, "Invalid"},
		{"apply without a kind", "PATCH", cms + "/exists?fieldManager=m", `{"apiVersion":"v1"}`, []string{"Content-Type", "application/apply-patch+yaml"}, 400, "BadRequest"},
		{"apply as YAML that is not an object", "PATCH", cms + "/exists?fieldManager=m", `- a`, []string{"Content-Type", "application/apply-patch+yaml"}, 400, "BadRequest"},
		{"force on a merge patch", "PATCH", cms + "/exists?force=true", `{}`, []string{"Content-Type", "application/merge-patch+json"}, 422, "Invalid"},
		{"field manager too long", "PATCH", cms + "/exists?fieldManager=" + strings.Repeat("m", 129), `{}`, []string{"Content-Type", "application/merge-patch+json"}, 400, "BadRequest"},
		{"strategic merge patch on the scale of a kind without one", "PATCH", cms + "/exists/scale", `{}`, []string{"Content-Type", "application/merge-patch+json"}, 404, "NotFound"},
		{"unacceptable accept", "GET", cms, nil, []string{"Accept", "text/html"}, 406, "NotAcceptable"},
		{"missing namespace", "POST", "/api/v1/namespaces/nope/configmaps", configMap("nope", "x", nil), nil, 404, "NotFound"},
		{"missing object", "GET", cms + "/nope", nil, nil, 404, "NotFound"},
		{"unknown resource", "GET", "/api/v1/widgets", nil, nil, 404, "NotFound"},
		{"unknown group", "GET", "/apis/nope.example.com/v1/things", nil, nil, 404, "NotFound"},
		{"already exists", "POST", cms, configMap("demo", "exists", nil), nil, 409, "AlreadyExists"},
		{"stale resourceVersion", "PUT", cms + "/exists", map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "exists", "resourceVersion": "1"}}, nil, 409, "Conflict"},
		{"name differs from URL", "PUT", cms + "/exists", configMap("demo", "other", nil), nil, 400, "BadRequest"},
		{"bad label selector", "GET", cms + "?labelSelector=a%20in%20(", nil, nil, 400, "BadRequest"},
		{"unsupported field selector", "GET", cms + "?fieldSelector=data.a%3Db", nil, nil, 400, "BadRequest"},
		{"bad resourceVersion", "GET", cms + "?resourceVersion=abc", nil, nil, 400, "BadRequest"},
		{"match without version", "GET", cms + "?resourceVersionMatch=Exact", nil, nil, 400, "BadRequest"},
		{"bad limit", "GET", cms + "?limit=-1", nil, nil, 400, "BadRequest"},
		{"bad continue", "GET", cms + "?continue=garbage", nil, nil, 400, "BadRequest"},
		{"bad JSON patch", "PATCH", cms + "/exists", `{"op":"add"}`, []string{"Content-Type", "application/json-patch+json"}, 400, "BadRequest"},
		{"JSON patch that fails", "PATCH", cms + "/exists", `[{"op":"test","path":"/data/x","value":"y"}]`, []string{"Content-Type", "application/json-patch+json"}, 422, "Invalid"},
		{"strict field validation", "POST", cms + "?fieldValidation=Strict", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"s"},"bogus":1}`, nil, 400, "BadRequest"},
		{"method not allowed", "PUT", cms, configMap("demo", "x", nil), nil, 405, "MethodNotAllowed"},
		{"bad dryRun", "POST", cms + "?dryRun=Some", configMap("demo", "d", nil), nil, 400, "BadRequest"},
		{"bad propagationPolicy", "DELETE", cms + "/exists?propagationPolicy=Sideways", nil, nil, 400, "BadRequest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := c.must(200, "GET", cms, nil)
			r := c.do(tt.method, tt.path, tt.body, tt.headers...)
			if r.code != tt.wantCode {
				t.Fatalf("got code %d, want %d: %s", r.code, tt.wantCode, r.body)
			}
			st := r.json(t)
			if st["kind"] != "Status" || st["status"] != "Failure" || st["reason"] != tt.wantReason || int(st["code"].(float64)) != tt.wantCode {
				t.Fatalf("got Status %v, want reason %s code %d", st, tt.wantReason, tt.wantCode)
			}
			after := c.must(200, "GET", cms, nil)
			if got, want := len(after["items"].([]any)), len(before["items"].([]any)); got != want {
				t.Fatalf("got %d objects after the failed request, want %d", got, want)
			}
		})
	}
}

func TestUnauthenticated(t *testing.T) {
	c := newClient(t)
	hc := &http.Client{Transport: c.http.Transport}
	// Strip the bearer token: the rest transport adds it, so use the TLS
	// config alone.
	hc.Transport = stripAuth{c.http.Transport}
	for _, path := range []string{"/api/v1/namespaces", "/api", "/version", "/metrics"} {
		resp, err := hc.Get(c.base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s without a token: got %d, want 401", path, resp.StatusCode)
		}
	}
	resp, err := hc.Get(c.base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /readyz without a token: got %d, want 200", resp.StatusCode)
	}
}

type stripAuth struct{ rt http.RoundTripper }

func (s stripAuth) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer wrong")
	return s.rt.RoundTrip(r)
}
