package openapi

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	openapi_v3 "github.com/google/gnostic-models/openapiv3"
	"google.golang.org/protobuf/proto"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

type reply struct {
	code   int
	header http.Header
	body   []byte
}

func get(t testing.TB, h http.Handler, url string, header ...string) reply {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, url, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return reply{w.Code, w.Header(), w.Body.Bytes()}
}

func index(t testing.TB, s *Service) map[string]string {
	t.Helper()
	var idx struct {
		Paths map[string]struct {
			URL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(get(t, s, "/openapi/v3").body, &idx); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for k, v := range idx.Paths {
		out[k] = v.URL
	}
	return out
}

// TestV2Protobuf fetches /openapi/v2 as kubectl does and checks the
// protobuf assembled from fragments equals gnostic's conversion of the
// whole JSON document, which is how kube-apiserver makes it.
func TestV2Protobuf(t *testing.T) {
	srv := httptest.NewServer(testService(t))
	defer srv.Close()
	fetch := func(accept string) ([]byte, string) {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/openapi/v2", nil)
		req.Header.Set("Accept", accept)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("Accept %s: %d %s", accept, resp.StatusCode, body)
		}
		return body, resp.Header.Get("Content-Type")
	}
	pb, ctype := fetch(typeV2ProtoOld)
	if ctype != typeV2Proto {
		t.Errorf("Content-Type = %q, want %q", ctype, typeV2Proto)
	}
	var doc openapi_v2.Document
	if err := proto.Unmarshal(pb, &doc); err != nil {
		t.Fatal(err)
	}
	var configMap *openapi_v2.Schema
	for _, d := range doc.GetDefinitions().GetAdditionalProperties() {
		if d.GetName() == core+"ConfigMap" {
			configMap = d.GetValue()
		}
	}
	if configMap == nil || configMap.GetDescription() != (corev1.ConfigMap{}).SwaggerDoc()[""] {
		t.Fatalf("ConfigMap definition = %v", configMap)
	}
	if pb2, _ := fetch(typeV2Proto + ", application/json;q=0.5"); string(pb2) != string(pb) {
		t.Error("the two protobuf media types give different documents")
	}

	js, ctype := fetch("application/json")
	if ctype != typeJSON {
		t.Errorf("Content-Type = %q, want application/json", ctype)
	}
	var swagger spec.Swagger
	if err := json.Unmarshal(js, &swagger); err != nil {
		t.Fatal(err)
	}
	if swagger.Definitions["com.example.stable.v1.Widget"].Properties["spec"].Properties["port"].AnyOf != nil {
		t.Error("v2 Widget keeps anyOf")
	}
	want, err := openapi_v2.ParseDocument(js)
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(&doc, want) {
		t.Error("protobuf document differs from the conversion of the JSON document")
	}
}

func TestV3Documents(t *testing.T) {
	s := testService(t)
	for path, url := range index(t, s) {
		js := get(t, s, url)
		if js.code != http.StatusOK || js.header.Get("Content-Type") != typeJSON {
			t.Fatalf("%s: %d %s", url, js.code, js.header.Get("Content-Type"))
		}
		var doc spec3.OpenAPI
		if err := json.Unmarshal(js.body, &doc); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if len(doc.Paths.Paths) == 0 || len(doc.Components.Schemas) == 0 {
			t.Errorf("%s: no paths or schemas", path)
		}
		// Every reference resolves within the document.
		for _, ref := range refsIn(t, js.body) {
			name, ok := strings.CutPrefix(ref, v3Prefix)
			if pname, isParam := strings.CutPrefix(ref, "#/components/parameters/"); isParam {
				if doc.Components.Parameters[pname] == nil {
					t.Errorf("%s: unresolved %s", path, ref)
				}
				continue
			}
			if !ok || doc.Components.Schemas[name] == nil {
				t.Errorf("%s: unresolved %s", path, ref)
			}
		}

		pb := get(t, s, url, "Accept", typeV3ProtoOld)
		if pb.code != http.StatusOK || pb.header.Get("Content-Type") != typeV3Proto {
			t.Fatalf("%s protobuf: %d %s", url, pb.code, pb.header.Get("Content-Type"))
		}
		var got openapi_v3.Document
		if err := proto.Unmarshal(pb.body, &got); err != nil {
			t.Fatal(err)
		}
		want, err := openapi_v3.ParseDocument(js.body)
		if err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(&got, want) {
			t.Errorf("%s: protobuf document differs from the conversion of the JSON document", path)
		}
		if pb.header.Get("ETag") != js.header.Get("ETag") {
			t.Errorf("%s: protobuf and JSON ETags differ", path)
		}
	}
}

// refsIn returns every "$ref" value in a JSON document.
func refsIn(t *testing.T, doc []byte) []string {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatal(err)
	}
	var refs []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				if s, ok := e.(string); ok && k == "$ref" {
					refs = append(refs, s)
				}
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(v)
	return refs
}

func TestV3IndexHashes(t *testing.T) {
	s := testService(t)
	before := index(t, s)
	if len(before) != 3 {
		t.Fatalf("index = %v, want 3 group-versions", before)
	}
	// Changing one group-version changes its hash only.
	s.SetGroupVersion(widgetGVK.GroupVersion(), []Resource{custom(t, widgetGVK, "widgets", nil)})
	after := index(t, s)
	for path := range before {
		changed := before[path] != after[path]
		if want := path == "apis/stable.example.com/v1"; changed != want {
			t.Errorf("%s: hash changed = %v, want %v", path, changed, want)
		}
	}
	// Setting the same content again gives the same hash.
	s.SetGroupVersion(widgetGVK.GroupVersion(), []Resource{custom(t, widgetGVK, "widgets", widgetSchema(), "status", "scale")})
	if again := index(t, s); again["apis/stable.example.com/v1"] != before["apis/stable.example.com/v1"] {
		t.Error("the same content got a different hash")
	}
	// Removing a group-version drops it.
	s.SetGroupVersion(leaseGVK.GroupVersion(), nil)
	if _, ok := index(t, s)["apis/coordination.k8s.io/v1"]; ok {
		t.Error("removed group-version still in the index")
	}
	if r := get(t, s, "/openapi/v3/apis/coordination.k8s.io/v1"); r.code != http.StatusNotFound {
		t.Errorf("removed group-version: %d, want 404", r.code)
	}
	if strings.Contains(string(get(t, s, "/openapi/v2").body), "coordination.k8s.io") {
		t.Error("removed group-version still in the v2 document")
	}
}

func TestCaching(t *testing.T) {
	s := testService(t)
	url := index(t, s)["api/v1"]
	path, hash, _ := strings.Cut(url, "?hash=")

	tests := []struct {
		name       string
		url        string
		header     []string // name, value pairs
		wantCode   int
		wantHeader map[string]string
	}{
		{"hash matches", url, nil, 200, map[string]string{"Cache-Control": "public, immutable", "ETag": `"` + hash + `"`, "Vary": "Accept"}},
		{"no hash", path, nil, 200, map[string]string{"Cache-Control": "", "ETag": `"` + hash + `"`}},
		{"stale hash", path + "?hash=0123", nil, http.StatusMovedPermanently, map[string]string{"Location": url}},
		{"if-none-match", path, []string{"If-None-Match", `"` + hash + `"`}, http.StatusNotModified, nil},
		{"if-none-match list", url, []string{"If-None-Match", `"x", W/"` + hash + `"`}, http.StatusNotModified, map[string]string{"Cache-Control": "public, immutable"}},
		{"if-none-match other", path, []string{"If-None-Match", `"x"`}, 200, nil},
		{"unknown group-version", "/openapi/v3/apis/nope/v1", nil, http.StatusNotFound, map[string]string{"Content-Type": typeJSON}},
		{"unknown path", "/openapi/v4", nil, http.StatusNotFound, nil},
		{"not acceptable", path, []string{"Accept", "application/xml"}, http.StatusNotAcceptable, map[string]string{"Content-Type": typeJSON}},
		{"not acceptable v2", "/openapi/v2", []string{"Accept", "application/vnd.kubernetes.protobuf"}, http.StatusNotAcceptable, nil},
		{"wildcard", "/openapi/v2", []string{"Accept", "application/*"}, 200, map[string]string{"Content-Type": typeJSON}},
		{"q=0 refuses", "/openapi/v2", []string{"Accept", "application/json;q=0, " + typeV2Proto}, 200, map[string]string{"Content-Type": typeV2Proto}},
		{"index ignores Accept", "/openapi/v3", []string{"Accept", "application/vnd.kubernetes.protobuf"}, 200, map[string]string{"Content-Type": typeJSON}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := get(t, s, tt.url, tt.header...)
			if r.code != tt.wantCode {
				t.Fatalf("code = %d, want %d: %s", r.code, tt.wantCode, r.body)
			}
			for k, want := range tt.wantHeader {
				if got := r.header.Get(k); got != want {
					t.Errorf("%s = %q, want %q", k, got, want)
				}
			}
			if r.code >= 400 {
				var st metav1.Status
				if err := json.Unmarshal(r.body, &st); err != nil || st.Kind != "Status" || st.Code != int32(r.code) {
					t.Errorf("error body is not a Status: %s", r.body)
				}
			}
		})
	}

	// ETags of the v2 document and the index, and 304s for them.
	for i, p := range []string{"/openapi/v2", "/openapi/v3"} {
		first := get(t, s, p)
		etag := first.header.Get("ETag")
		if etag == "" {
			t.Fatalf("%s: no ETag", p)
		}
		if r := get(t, s, p, "If-None-Match", etag); r.code != http.StatusNotModified || len(r.body) != 0 {
			t.Errorf("%s with its ETag: %d", p, r.code)
		}
		gvk := widgetGVK
		gvk.Version = fmt.Sprintf("v%d", i+2)
		s.SetGroupVersion(gvk.GroupVersion(), []Resource{custom(t, gvk, "widgets", nil)})
		if r := get(t, s, p, "If-None-Match", etag); r.code != http.StatusOK || r.header.Get("ETag") == etag {
			t.Errorf("%s after a change: %d with ETag %s", p, r.code, r.header.Get("ETag"))
		}
	}
}

func TestHeadAndMethods(t *testing.T) {
	s := testService(t)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest(http.MethodHead, "/openapi/v2", nil))
	full := get(t, s, "/openapi/v2")
	if w.Code != http.StatusOK || w.Body.Len() != 0 || w.Header().Get("Content-Length") != full.header.Get("Content-Length") {
		t.Errorf("HEAD: %d, %d bytes, Content-Length %s", w.Code, w.Body.Len(), w.Header().Get("Content-Length"))
	}
	w = httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/openapi/v2", nil))
	if w.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405", w.Code)
	}
}
