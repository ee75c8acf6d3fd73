package apiserver_test

import (
	"net/http"
	"strings"
	"testing"
)

// methodNotAllowedBody is kube-apiserver's answer, byte for byte, to a
// method no route serves at a path.
const methodNotAllowedBody = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server does not allow this method on the requested resource","reason":"MethodNotAllowed","details":{},"code":405}`

// TestCollectionRoutes checks which verbs the collection paths serve:
// across namespaces a namespaced kind is only listed and watched, and
// namespaces cannot be deleted as a collection; an empty namespace
// segment lists but refuses other verbs, with kube-apiserver's answers.
// Refused requests change nothing.
func TestCollectionRoutes(t *testing.T) {
	c := newClient(t)
	for _, ns := range []string{"a", "b"} {
		c.createNamespace(ns)
		c.must(http.StatusCreated, "POST", "/api/v1/namespaces/"+ns+"/configmaps", configMap(ns, "keep", nil))
	}
	tests := []struct {
		method, path string
		body         any
		want         int
	}{
		{"DELETE", "/api/v1/configmaps", nil, http.StatusMethodNotAllowed},
		{"DELETE", "/api/v1/namespaces//configmaps", nil, http.StatusBadRequest},
		{"DELETE", "/apis/coordination.k8s.io/v1/namespaces//leases", nil, http.StatusBadRequest},
		{"GET", "/api/v1/namespaces//configmaps/keep", nil, http.StatusBadRequest},
		{"DELETE", "/api/v1/namespaces//configmaps/keep", nil, http.StatusBadRequest},
		{"PUT", "/api/v1/namespaces//configmaps/keep", configMap("a", "keep", nil), http.StatusBadRequest},
		{"POST", "/api/v1/namespaces//configmaps", configMap("a", "new", nil), http.StatusUnprocessableEntity},
		{"GET", "/api/v1/namespaces//configmaps", nil, http.StatusOK},
		{"DELETE", "/api/v1/configmaps?labelSelector=x%3Dy", nil, http.StatusMethodNotAllowed},
		{"POST", "/api/v1/configmaps", configMap("a", "new", nil), http.StatusMethodNotAllowed},
		{"DELETE", "/api/v1/namespaces", nil, http.StatusMethodNotAllowed},
		{"DELETE", "/apis/coordination.k8s.io/v1/leases", nil, http.StatusMethodNotAllowed},
		{"PATCH", "/api/v1/namespaces/a/configmaps", `{}`, http.StatusMethodNotAllowed},
		{"GET", "/api/v1/configmaps", nil, http.StatusOK},
		{"GET", "/api/v1/configmaps?watch=1&timeoutSeconds=1", nil, http.StatusOK},
		{"GET", "/api/v1/namespaces", nil, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			r := c.do(tt.method, tt.path, tt.body)
			if r.code != tt.want {
				t.Fatalf("got %d, want %d: %s", r.code, tt.want, r.body)
			}
			want := map[int]string{
				http.StatusMethodNotAllowed:    methodNotAllowedBody,
				http.StatusBadRequest:          `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Namespace parameter required.","reason":"BadRequest","code":400}`,
				http.StatusUnprocessableEntity: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"ConfigMap \"new\" is invalid: metadata.namespace: Required value","reason":"Invalid","details":{"name":"new","kind":"ConfigMap","causes":[{"reason":"FieldValueRequired","message":"Required value","field":"metadata.namespace"}]},"code":422}`,
			}[tt.want]
			if got := strings.TrimSpace(string(r.body)); want != "" && got != want {
				t.Errorf("body:\n got %s\nwant %s", got, want)
			}
		})
	}
	for _, path := range []string{"/api/v1/namespaces/a/configmaps/keep", "/api/v1/namespaces/b/configmaps/keep", "/api/v1/namespaces/a", "/api/v1/namespaces/b"} {
		if r := c.do("GET", path, nil); r.code != http.StatusOK {
			t.Errorf("GET %s after the refused requests: got %d, want 200", path, r.code)
		}
	}
	// Within a namespace deletecollection is served.
	c.must(http.StatusOK, "DELETE", "/api/v1/namespaces/a/configmaps", nil)
	if r := c.do("GET", "/api/v1/namespaces/a/configmaps/keep", nil); r.code != http.StatusNotFound {
		t.Errorf("deletecollection in namespace a left its ConfigMap: %d", r.code)
	}
}
