package openapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/yaml"
)

// The checks below re-implement what kubectl (k8s.io/cli-runtime
// pkg/resource, query_param_verifier_v3.go and query_param_verifier.go)
// does to decide whether the server supports fieldValidation (and dryRun):
// it goes through the paths of the group-version's v3 document (or the v2
// document), takes the first PATCH operation whose
// x-kubernetes-group-version-kind is the kind, and looks among that
// operation's parameters for a query parameter of that name. The v2 check
// follows "#/parameters/" references into the document's parameters; the
// v3 one looks at inline parameters only (newer versions also try
// "#/parameters/" references, which v3 documents do not use). The v3
// paths' order is a map's, so every PATCH operation of the kind must pass.

// patchSupportsV3 is the check for one PATCH operation, as old kubectl did
// it (inline parameters only; a $ref has an empty name).
func patchSupportsV3(op *spec3.Operation, param string) bool {
	for _, p := range op.Parameters {
		if p.Name == param && p.In == "query" {
			return true
		}
	}
	return false
}

func hasGVKExtensionV3(ext spec.Extensions, gvk schema.GroupVersionKind) bool {
	var got map[string]string
	if err := ext.GetObject("x-kubernetes-group-version-kind", &got); err != nil {
		return false
	}
	return got["group"] == gvk.Group && got["version"] == gvk.Version && got["kind"] == gvk.Kind
}

// supportsV3 reports whether kubectl, whatever order it met the paths in,
// finds param supported for gvk.
func supportsV3(t *testing.T, doc *spec3.OpenAPI, gvk schema.GroupVersionKind, param string) bool {
	t.Helper()
	found := 0
	for path, item := range doc.Paths.Paths {
		op := item.Patch
		if op == nil || !hasGVKExtensionV3(op.Extensions, gvk) {
			continue
		}
		found++
		if !patchSupportsV3(op, param) {
			t.Logf("PATCH %s lacks %s", path, param)
			return false
		}
	}
	return found > 0
}

func hasGVKExtensionV2(ext []*openapi_v2.NamedAny, gvk schema.GroupVersionKind) bool {
	for _, e := range ext {
		if e.GetValue().GetYaml() == "" || e.GetName() != "x-kubernetes-group-version-kind" {
			continue
		}
		var v map[string]string
		if err := yaml.Unmarshal([]byte(e.GetValue().GetYaml()), &v); err != nil {
			continue
		}
		return v["group"] == gvk.Group && v["kind"] == gvk.Kind && v["version"] == gvk.Version
	}
	return false
}

// supportsV2 is kubectl's v2 check over the protobuf document, following
// references to the document's parameters, for every PATCH operation of
// the kind.
func supportsV2(t *testing.T, doc *openapi_v2.Document, gvk schema.GroupVersionKind, param string) bool {
	t.Helper()
	global := map[string]*openapi_v2.NamedParameter{}
	for _, p := range doc.GetParameters().GetAdditionalProperties() {
		global["#/parameters/"+p.GetName()] = p
	}
	found := 0
	for _, path := range doc.GetPaths().GetPath() {
		op := path.GetValue().GetPatch()
		if !hasGVKExtensionV2(op.GetVendorExtension(), gvk) {
			continue
		}
		found++
		ok := false
		for _, p := range op.GetParameters() {
			if p.GetParameter().GetNonBodyParameter().GetQueryParameterSubSchema().GetName() == param {
				ok = true
			}
			if g := global[p.GetJsonReference().GetXRef()]; g != nil && g.GetValue().GetNonBodyParameter().GetQueryParameterSubSchema().GetName() == param {
				ok = true
			}
		}
		if !ok {
			t.Logf("PATCH %s lacks %s", path.GetName(), param)
			return false
		}
	}
	return found > 0
}

func TestKubectlQueryParamSupport(t *testing.T) {
	s := testService(t)
	urls := index(t, s)
	v3 := func(path string) *spec3.OpenAPI {
		var doc spec3.OpenAPI
		if err := json.Unmarshal(get(t, s, urls[path]).body, &doc); err != nil {
			t.Fatal(err)
		}
		return &doc
	}
	var v2 openapi_v2.Document
	if err := proto.Unmarshal(get(t, s, "/openapi/v2", "Accept", typeV2ProtoOld).body, &v2); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		gvk  schema.GroupVersionKind
		path string
	}{
		{configMapGVK, "api/v1"},
		{namespaceGVK, "api/v1"},
		{leaseGVK, "apis/coordination.k8s.io/v1"},
		{widgetGVK, "apis/stable.example.com/v1"},
	}
	for _, tt := range tests {
		doc := v3(tt.path)
		for _, param := range []string{"fieldValidation", "dryRun", "fieldManager", "force"} {
			if !supportsV3(t, doc, tt.gvk, param) {
				t.Errorf("kubectl would find %v does not support %s (v3)", tt.gvk, param)
			}
			if !supportsV2(t, &v2, tt.gvk, param) {
				t.Errorf("kubectl would find %v does not support %s (v2)", tt.gvk, param)
			}
		}
		if supportsV3(t, doc, tt.gvk, "noSuchParam") {
			t.Errorf("the check finds a parameter that does not exist")
		}
	}
}

// TestExplain looks a custom kind up as kubectl explain does: by
// x-kubernetes-group-version-kind among the v3 document's schemas, then
// follows its properties to a field's description.
func TestExplain(t *testing.T) {
	s := testService(t)
	resp := get(t, s, index(t, s)["apis/stable.example.com/v1"], "Accept", "application/json")
	if resp.code != http.StatusOK {
		t.Fatal(resp.code)
	}
	var doc map[string]any
	if err := json.Unmarshal(resp.body, &doc); err != nil {
		t.Fatal(err)
	}
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	var found map[string]any
	for _, s := range schemas {
		s := s.(map[string]any)
		gvks, _ := s["x-kubernetes-group-version-kind"].([]any)
		for _, g := range gvks {
			g := g.(map[string]any)
			if g["group"] == widgetGVK.Group && g["version"] == widgetGVK.Version && g["kind"] == widgetGVK.Kind {
				found = s
			}
		}
	}
	if found == nil {
		t.Fatal("no schema for the Widget kind")
	}
	spec := found["properties"].(map[string]any)["spec"].(map[string]any)
	size := spec["properties"].(map[string]any)["size"].(map[string]any)
	if found["description"] != "Widget is a test kind." || size["description"] != "size in units." {
		t.Errorf("descriptions: kind %q, spec.size %q", found["description"], size["description"])
	}
	// kube wraps a $ref that has a description in allOf, so that kubectl
	// explain shows the field's description and not the type's
	metadata := found["properties"].(map[string]any)["metadata"].(map[string]any)
	if _, bare := metadata["$ref"]; bare {
		t.Errorf("metadata has a $ref beside its description: %v", metadata)
	}
	const wantDoc = "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
	if metadata["description"] != wantDoc {
		t.Errorf("metadata description %q, want %q", metadata["description"], wantDoc)
	}
	allOf, _ := metadata["allOf"].([]any)
	var ref string
	if len(allOf) == 1 {
		ref, _ = allOf[0].(map[string]any)["$ref"].(string)
	}
	if !strings.HasPrefix(ref, v3Prefix) || schemas[strings.TrimPrefix(ref, v3Prefix)] == nil {
		t.Errorf("metadata allOf %v does not resolve", allOf)
	}
}
