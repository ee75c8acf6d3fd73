package openapi

import (
	"encoding/json"
	"testing"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	openapi_v3 "github.com/google/gnostic-models/openapiv3"
	"google.golang.org/protobuf/proto"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// FuzzCRDDocuments serves a CRD with an arbitrary schema and checks every
// document is served, parses, and that the protobuf assembled from
// fragments equals gnostic's conversion of the JSON.
func FuzzCRDDocuments(f *testing.F) {
	seed, _ := json.Marshal(widgetSchema())
	f.Add(seed)
	f.Add([]byte(`{"type":"object","properties":{"a":{"type":"string","default":{"$ref":"#/definitions/x"},"description":"\"$ref\":\"#/definitions/y\" <&>"}}}`))
	f.Add([]byte(`{"type":"object","x-kubernetes-preserve-unknown-fields":true}`))
	f.Add([]byte(`{"type":"array","items":{"type":"integer","enum":[1,null,"x"]},"nullable":true}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var props apiextensionsv1.JSONSchemaProps
		if json.Unmarshal(data, &props) != nil {
			return
		}
		gvk := schema.GroupVersionKind{Group: "fuzz.example.com", Version: "v1", Kind: "Fuzz"}
		root, defs, err := ForCRD(gvk, &props)
		if err != nil {
			return
		}
		s := NewService()
		s.SetGroupVersion(gvk.GroupVersion(), []Resource{{GVK: gvk, Plural: "fuzzes", Namespaced: true, Root: root, Definitions: defs, Subresources: []string{"status"}}})

		v2js := get(t, s, "/openapi/v2", "Accept", typeJSON)
		v2pb := get(t, s, "/openapi/v2", "Accept", typeV2Proto)
		if v2js.code != 200 || v2pb.code != 200 {
			t.Fatalf("v2: %d %s / %d %s", v2js.code, v2js.body, v2pb.code, v2pb.body)
		}
		want2, err := openapi_v2.ParseDocument(v2js.body)
		if err != nil {
			t.Fatal(err)
		}
		var got2 openapi_v2.Document
		if err := proto.Unmarshal(v2pb.body, &got2); err != nil || !proto.Equal(&got2, want2) {
			t.Fatalf("v2 protobuf differs from the JSON's conversion (%v)", err)
		}

		url := index(t, s)["apis/fuzz.example.com/v1"]
		v3js := get(t, s, url, "Accept", typeJSON)
		v3pb := get(t, s, url, "Accept", typeV3Proto)
		if v3js.code != 200 || v3pb.code != 200 {
			t.Fatalf("v3: %d %s / %d %s", v3js.code, v3js.body, v3pb.code, v3pb.body)
		}
		want3, err := openapi_v3.ParseDocument(v3js.body)
		if err != nil {
			t.Fatal(err)
		}
		var got3 openapi_v3.Document
		if err := proto.Unmarshal(v3pb.body, &got3); err != nil || !proto.Equal(&got3, want3) {
			t.Fatalf("v3 protobuf differs from the JSON's conversion (%v)", err)
		}
	})
}

// FuzzAccept checks content negotiation never panics and answers 200 or
// 406.
func FuzzAccept(f *testing.F) {
	for _, a := range []string{"", "*/*", "application/json;q=0.1, " + typeV2ProtoOld, "application/*;q=0", ";;,/,q=x", "text/html, application/xml;q=0.9"} {
		f.Add(a)
	}
	s := testService(f)
	f.Fuzz(func(t *testing.T, accept string) {
		for _, p := range []string{"/openapi/v2", "/openapi/v3/api/v1"} {
			if r := get(t, s, p, "Accept", accept); r.code != 200 && r.code != 406 {
				t.Fatalf("%s with Accept %q: %d", p, accept, r.code)
			}
		}
	})
}
