package apiserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/params"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// fuzzCRD is a custom kind with a schema every stored Gizmo must meet:
// bounds, an enum, a set, a map list and a validation rule.
const fuzzCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"gizmos.fuzz.example.com"},
"spec":{"group":"fuzz.example.com","scope":"Namespaced","names":{"plural":"gizmos","kind":"Gizmo"},
"versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{},"scale":{"specReplicasPath":".spec.replicas","statusReplicasPath":".status.replicas"}},
"schema":{"openAPIV3Schema":{"type":"object","properties":{
 "spec":{"type":"object","required":["mode"],"x-kubernetes-validations":[{"rule":"self.replicas <= 5 || self.mode == 'big'","message":"too many"}],
  "properties":{
   "replicas":{"type":"integer","minimum":0,"maximum":10,"default":1},
   "mode":{"type":"string","enum":["small","big"]},
   "tags":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string","maxLength":8}},
   "ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
     "items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"port":{"type":"integer"}}}}}},
 "status":{"type":"object","properties":{"replicas":{"type":"integer"}}}}}}}]}}`

// FuzzPatch sends every kind of patch (JSON, merge, strategic merge,
// server-side apply) to a ConfigMap and to a custom object with a strict
// schema. Whatever the patch, the answer is a Status or the object, and
// what is stored afterwards still meets the kind's schema: a bad patch
// is refused, never half-applied.
func FuzzPatch(f *testing.F) {
	for _, s := range []struct {
		typ  uint8
		body string
	}{
		{0, `[{"op":"replace","path":"/spec/replicas","value":11}]`},
		{0, `[{"op":"add","path":"/data/x","value":"1"}]`},
		{1, `{"spec":{"mode":"big","replicas":9}}`},
		{1, `{"spec":{"tags":["a","a"]}}`},
		{2, `{"data":{"y":"2"},"metadata":{"labels":{"a":"b"}}}`},
		{3, "apiVersion: fuzz.example.com/v1\nkind: Gizmo\nspec: {ports: [{name: a, port: 1}, {name: a}]}\n"},
		{3, "apiVersion: v1\nkind: ConfigMap\ndata: {k: v}\n"},
		{4, `{"spec":{"replicas":-1}}`},
		{5, `{"status":{"replicas":"x"}}`},
		// Amplification: copies of a subtree into itself, copies of a
		// large value, and more operations than allowed.
		{4, repeatOps(18, `{"op":"copy","from":"/spec","path":"/spec/x"}`)},
		{0, `[{"op":"add","path":"/data/a","value":"` + strings.Repeat("x", 64<<10) + `"}` + copies(24, "/data/a", "/data/a") + `]`},
		{0, `[{"op":"add","path":"/metadata/annotations","value":{"a":"` + strings.Repeat("x", 200<<10) + `"}}` +
			copies(12, "/metadata/annotations", "/metadata/managedFields/0/fieldsV1/f:x") + `]`},
		{0, repeatOps(maxJSONPatchOps+1, `{"op":"test","path":"/kind","value":"ConfigMap"}`)},
	} {
		f.Add(s.typ, []byte(s.body))
	}
	srv, serve := startFuzzServer(f)
	mustServe(f, serve, 201, "POST", "/api/v1/namespaces", "application/json", `{"metadata":{"name":"demo"}}`)
	mustServe(f, serve, 201, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", fuzzCRD)
	mustServe(f, serve, 201, "POST", "/api/v1/namespaces/demo/configmaps", "application/json", `{"metadata":{"name":"c"},"data":{"k":"v"}}`)
	gizmos := "/apis/fuzz.example.com/v1/namespaces/demo/gizmos"
	mustServe(f, serve, 201, "POST", gizmos, "application/json", `{"apiVersion":"fuzz.example.com/v1","kind":"Gizmo","metadata":{"name":"g"},"spec":{"mode":"small"}}`)
	types := []string{"application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json", "application/apply-patch+yaml"}
	targets := []string{"/api/v1/namespaces/demo/configmaps/c", gizmos + "/g", gizmos + "/g/scale", gizmos + "/g/status"}
	gizmo, ok := srv.reg.Get(schema.GroupVersionResource{Group: "fuzz.example.com", Version: "v1", Resource: "gizmos"})
	cms, ok2 := srv.reg.Get(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"})
	if !ok || !ok2 {
		f.Fatal("gizmos or configmaps are not served")
	}
	f.Fuzz(func(t *testing.T, typ uint8, body []byte) {
		target := targets[int(typ>>2)%len(targets)]
		ctype := types[int(typ)%len(types)]
		rec := serve("PATCH", target+"?fieldManager=fuzz", ctype, string(body))
		if rec.Code >= 500 && !strings.Contains(rec.Body.String(), `"etcdserver: request is too large"`) {
			t.Fatalf("PATCH %s (%s): got %d: %s", target, ctype, rec.Code, rec.Body)
		}
		if rec.Code >= 400 {
			var st struct {
				Kind string
				Code int
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil || st.Kind != "Status" || st.Code != rec.Code {
				t.Fatalf("PATCH %s: error %d is not a Status with that code: %s", target, rec.Code, rec.Body)
			}
		}
		for _, key := range []string{cms.Key("demo", "c"), gizmo.Key("demo", "g")} {
			kv, err := srv.storage.Get(t.Context(), key)
			if err != nil {
				t.Fatal(err)
			}
			if len(kv.Value) > srv.maxObjectBytes() {
				t.Fatalf("PATCH %s (%s) stored %d bytes at %s, over the bound of %d", target, ctype, len(kv.Value), key, srv.maxObjectBytes())
			}
		}
		got := serve("GET", gizmos+"/g", "", "")
		if got.Code != 200 {
			t.Fatalf("GET the gizmo after PATCH %s: %d %s", target, got.Code, got.Body)
		}
		var obj map[string]any
		if err := params.UnmarshalJSON(got.Body.Bytes(), &obj); err != nil {
			t.Fatal(err)
		}
		if errs := gizmo.Validate(t.Context(), obj, nil); len(errs) > 0 {
			t.Fatalf("PATCH %s (%s) %q left an invalid gizmo stored: %v\n%s", target, ctype, body, errs, got.Body)
		}
	})
}

// copies is n JSON patch copy operations, each after a comma, from one
// path to as many new keys beside to.
func copies(n int, from, to string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `,{"op":"copy","from":%q,"path":"%s%d"}`, from, to, i)
	}
	return b.String()
}
