package apiserver_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	openapiv2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"
)

const (
	v2ProtoType    = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
	v2ProtoTypeOld = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
	widgetDef      = "com.example.v1.Widget"
)

// openAPIWidgetCRD has a schema with a description, so its definition
// can be recognized in the documents.
const openAPIWidgetCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
 "metadata":{"name":"widgets.example.com"},
 "spec":{"group":"example.com","scope":"Namespaced",
  "names":{"plural":"widgets","singular":"widget","kind":"Widget"},
  "versions":[
   {"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
    "schema":{"openAPIV3Schema":{"type":"object","description":"A widget.","properties":{
     "spec":{"type":"object","properties":{"size":{"type":"integer","description":"How big."}}}}}}},
   {"name":"v1alpha1","served":false,"storage":false,
    "schema":{"openAPIV3Schema":{"type":"object"}}}]}}`

// openAPIv2 fetches /openapi/v2 as JSON.
func (c *client) openAPIv2() map[string]any {
	c.t.Helper()
	return c.must(http.StatusOK, "GET", "/openapi/v2", nil, "Accept", "application/json")
}

// openAPIIndex fetches the v3 index: group-version path to URL.
func (c *client) openAPIIndex() map[string]string {
	c.t.Helper()
	var idx struct {
		Paths map[string]struct {
			URL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	r := c.do("GET", "/openapi/v3", nil)
	if r.code != http.StatusOK {
		c.t.Fatalf("GET /openapi/v3: got %d: %s", r.code, r.body)
	}
	if err := json.Unmarshal(r.body, &idx); err != nil {
		c.t.Fatalf("v3 index: %v: %s", err, r.body)
	}
	out := map[string]string{}
	for k, v := range idx.Paths {
		out[k] = v.URL
	}
	return out
}

func definitions(doc map[string]any) map[string]any {
	if d, ok := doc["definitions"].(map[string]any); ok {
		return d
	}
	comps, _ := doc["components"].(map[string]any)
	d, _ := comps["schemas"].(map[string]any)
	return d
}

func gvkOf(def any) string {
	m, _ := def.(map[string]any)
	return mustJSON(m["x-kubernetes-group-version-kind"])
}

func TestOpenAPIBuiltin(t *testing.T) {
	c := newClient(t)
	v2 := c.openAPIv2()
	if v2["swagger"] != "2.0" {
		t.Errorf("got swagger %v, want 2.0", v2["swagger"])
	}
	defs := definitions(v2)
	cm := defs["io.k8s.api.core.v1.ConfigMap"]
	if got, want := gvkOf(cm), `[{"group":"","kind":"ConfigMap","version":"v1"}]`; got != want {
		t.Errorf("ConfigMap x-kubernetes-group-version-kind: got %s, want %s", got, want)
	}
	paths, _ := v2["paths"].(map[string]any)
	if _, ok := paths["/api/v1/namespaces/{namespace}/configmaps/{name}"]; !ok {
		t.Errorf("v2 paths lack /api/v1/namespaces/{namespace}/configmaps/{name}")
	}

	idx := c.openAPIIndex()
	for _, gv := range []string{"api/v1", "apis/coordination.k8s.io/v1", "apis/apiextensions.k8s.io/v1"} {
		if !strings.HasPrefix(idx[gv], "/openapi/v3/"+gv+"?hash=") {
			t.Errorf("v3 index entry for %s: got %q, want /openapi/v3/%s?hash=...", gv, idx[gv], gv)
		}
	}
	core := c.must(http.StatusOK, "GET", idx["api/v1"], nil)
	if !strings.HasPrefix(str(core["openapi"]), "3.") {
		t.Errorf("got openapi %v, want 3.x", core["openapi"])
	}
	if got := gvkOf(definitions(core)["io.k8s.api.core.v1.ConfigMap"]); got != `[{"group":"","kind":"ConfigMap","version":"v1"}]` {
		t.Errorf("v3 api/v1 ConfigMap gvk: got %s", got)
	}
	c.must(http.StatusNotFound, "GET", "/openapi/v3/apis/nope.example.com/v1", nil)
	if r := c.do("POST", "/openapi/v2", `{}`); r.code != http.StatusMethodNotAllowed {
		t.Errorf("POST /openapi/v2: got %d, want 405", r.code)
	}
}

func TestOpenAPIProtobuf(t *testing.T) {
	c := newClient(t)
	c.must(http.StatusCreated, "POST", crds, openAPIWidgetCRD)
	for _, accept := range []string{v2ProtoTypeOld, v2ProtoType} {
		t.Run(accept, func(t *testing.T) {
			r := c.do("GET", "/openapi/v2", nil, "Accept", accept)
			if r.code != http.StatusOK {
				t.Fatalf("got %d: %s", r.code, r.body)
			}
			if got := r.header.Get("Content-Type"); got != v2ProtoType {
				t.Errorf("got Content-Type %q, want %q", got, v2ProtoType)
			}
			var doc openapiv2.Document
			if err := proto.Unmarshal(r.body, &doc); err != nil {
				t.Fatalf("the protobuf document does not decode: %v", err)
			}
			if doc.GetSwagger() != "2.0" {
				t.Errorf("got swagger %q, want 2.0", doc.GetSwagger())
			}
			found := map[string]*openapiv2.Schema{}
			for _, p := range doc.GetDefinitions().GetAdditionalProperties() {
				found[p.GetName()] = p.GetValue()
			}
			for _, name := range []string{"io.k8s.api.core.v1.ConfigMap", "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", widgetDef} {
				if found[name] == nil {
					t.Errorf("protobuf v2 lacks definition %s", name)
				}
			}
			w := found[widgetDef]
			if w.GetDescription() != "A widget." {
				t.Errorf("got Widget description %q, want %q", w.GetDescription(), "A widget.")
			}
			var gvk string
			for _, ext := range w.GetVendorExtension() {
				if ext.GetName() == "x-kubernetes-group-version-kind" {
					gvk = ext.GetValue().GetYaml()
				}
			}
			if !strings.Contains(gvk, "example.com") || !strings.Contains(gvk, "Widget") {
				t.Errorf("got Widget x-kubernetes-group-version-kind %q, want example.com Widget v1", gvk)
			}
			// Same content as the JSON document.
			js := c.openAPIv2()
			if got, want := len(found), len(definitions(js)); got != want {
				t.Errorf("protobuf has %d definitions, JSON %d", got, want)
			}
		})
	}
	if r := c.do("GET", "/openapi/v2", nil, "Accept", "text/html"); r.code != http.StatusNotAcceptable {
		t.Errorf("GET /openapi/v2 as text/html: got %d, want 406", r.code)
	}
}

func TestOpenAPICaching(t *testing.T) {
	c := newClient(t)
	for _, path := range []string{"/openapi/v2", "/openapi/v3", "/openapi/v3/api/v1"} {
		t.Run(path, func(t *testing.T) {
			r := c.do("GET", path, nil)
			etag := r.header.Get("ETag")
			if r.code != http.StatusOK || etag == "" {
				t.Fatalf("got %d ETag %q, want 200 with an ETag", r.code, etag)
			}
			if again := c.do("GET", path, nil, "If-None-Match", etag); again.code != http.StatusNotModified || len(again.body) != 0 {
				t.Errorf("with If-None-Match: got %d and %d bytes, want 304 and none", again.code, len(again.body))
			}
			if other := c.do("GET", path, nil, "If-None-Match", `"other"`); other.code != http.StatusOK {
				t.Errorf("with a stale If-None-Match: got %d, want 200", other.code)
			}
		})
	}
	// The hash the index gives names content that never changes; any
	// other hash redirects to it.
	url := c.openAPIIndex()["api/v1"]
	r := c.do("GET", url, nil)
	if r.code != http.StatusOK || !strings.Contains(r.header.Get("Cache-Control"), "immutable") {
		t.Errorf("GET %s: got %d Cache-Control %q, want 200 immutable", url, r.code, r.header.Get("Cache-Control"))
	}
	noRedirect := *c
	hc := *c.http
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	noRedirect.http = &hc
	r = noRedirect.do("GET", "/openapi/v3/api/v1?hash=WRONG", nil)
	if r.code != http.StatusMovedPermanently || r.header.Get("Location") != url {
		t.Errorf("with a wrong hash: got %d Location %q, want 301 to %s", r.code, r.header.Get("Location"), url)
	}
}

// TestOpenAPICustomResources follows a CRD through the documents: in
// when created (served versions only), changed when its schema changes,
// out when deleted.
func TestOpenAPICustomResources(t *testing.T) {
	c := newClient(t)
	c.must(http.StatusCreated, "POST", crds, openAPIWidgetCRD)

	idx := c.openAPIIndex()
	url, ok := idx["apis/example.com/v1"]
	if !ok {
		t.Fatalf("v3 index lacks apis/example.com/v1 after the CRD was created: %v", idx)
	}
	if _, ok := idx["apis/example.com/v1alpha1"]; ok {
		t.Errorf("v3 index has apis/example.com/v1alpha1, which is not served")
	}
	const wantGVK = `[{"group":"example.com","kind":"Widget","version":"v1"}]`
	v3 := c.must(http.StatusOK, "GET", url, nil)
	w3, _ := definitions(v3)[widgetDef].(map[string]any)
	if got := gvkOf(w3); got != wantGVK {
		t.Errorf("v3 Widget gvk: got %s, want %s", got, wantGVK)
	}
	if w3["description"] != "A widget." || !strings.Contains(mustJSON(w3["properties"]), `"How big."`) {
		t.Errorf("v3 Widget schema lost its descriptions: %s", mustJSON(w3))
	}
	if !strings.Contains(mustJSON(w3["properties"]), `"metadata"`) {
		t.Errorf("v3 Widget schema lacks metadata: %s", mustJSON(w3["properties"]))
	}
	v3paths, _ := v3["paths"].(map[string]any)
	if _, ok := v3paths["/apis/example.com/v1/namespaces/{namespace}/widgets/{name}/status"]; !ok {
		t.Errorf("v3 paths lack the status subresource: %v", mustJSON(v3paths))
	}
	if got := gvkOf(definitions(c.openAPIv2())[widgetDef]); got != wantGVK {
		t.Errorf("v2 Widget gvk: got %s, want %s", got, wantGVK)
	}

	// A schema change is published with a new hash.
	crd := c.must(http.StatusOK, "GET", crds+"/widgets.example.com", nil)
	v := crd["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any)
	props := v["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)["properties"].(map[string]any)
	props["spec"].(map[string]any)["properties"].(map[string]any)["color"] = map[string]any{"type": "string"}
	c.must(http.StatusOK, "PUT", crds+"/widgets.example.com", crd)
	newURL := c.openAPIIndex()["apis/example.com/v1"]
	if newURL == url || newURL == "" {
		t.Errorf("after a schema change the index URL is %q, want a new hash (was %q)", newURL, url)
	}
	v3 = c.must(http.StatusOK, "GET", newURL, nil)
	if !strings.Contains(mustJSON(definitions(v3)[widgetDef]), `"color"`) {
		t.Errorf("v3 Widget lacks the new spec.color")
	}
	if !strings.Contains(mustJSON(definitions(c.openAPIv2())[widgetDef]), `"color"`) {
		t.Errorf("v2 Widget lacks the new spec.color")
	}

	// Deleting: the test server runs no CRD cleanup controller, so the
	// finalizer is removed by hand, as that controller would once the
	// widgets are gone.
	c.must(http.StatusOK, "DELETE", crds+"/widgets.example.com", nil)
	c.must(http.StatusOK, "PATCH", crds+"/widgets.example.com", `{"metadata":{"finalizers":null}}`, "Content-Type", "application/merge-patch+json")
	c.must(http.StatusNotFound, "GET", crds+"/widgets.example.com", nil)
	if _, ok := c.openAPIIndex()["apis/example.com/v1"]; ok {
		t.Errorf("v3 index still has apis/example.com/v1 after the CRD was deleted")
	}
	c.must(http.StatusNotFound, "GET", "/openapi/v3/apis/example.com/v1", nil)
	if _, ok := definitions(c.openAPIv2())[widgetDef]; ok {
		t.Errorf("v2 still defines %s after the CRD was deleted", widgetDef)
	}
	if _, ok := definitions(c.openAPIv2())["io.k8s.api.core.v1.ConfigMap"]; !ok {
		t.Errorf("v2 lost the built-in definitions")
	}
}

// TestOpenAPIContentLength checks the documents are whole: the length
// announced is the length sent.
func TestOpenAPIContentLength(t *testing.T) {
	c := newClient(t)
	for _, tt := range []struct{ path, accept string }{
		{"/openapi/v2", "application/json"},
		{"/openapi/v2", v2ProtoType},
		{"/openapi/v3/api/v1", "application/json"},
	} {
		r := c.do("GET", tt.path, nil, "Accept", tt.accept)
		if n, err := strconv.Atoi(r.header.Get("Content-Length")); err != nil || n != len(r.body) {
			t.Errorf("GET %s as %s: Content-Length %q, body %d bytes", tt.path, tt.accept, r.header.Get("Content-Length"), len(r.body))
		}
	}
}
