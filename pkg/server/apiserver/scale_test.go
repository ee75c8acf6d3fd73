package apiserver_test

import (
	"net/http"
	"strings"
	"testing"
)

// scalerCRD serves the scale subresource: replicas at .spec.replicas,
// observed replicas and the selector in status.
const scalerCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
 "metadata":{"name":"scalers.example.com"},
 "spec":{"group":"example.com","scope":"Namespaced",
  "names":{"plural":"scalers","singular":"scaler","kind":"Scaler"},
  "versions":[{"name":"v1","served":true,"storage":true,
   "subresources":{"status":{},"scale":{"specReplicasPath":".spec.replicas","statusReplicasPath":".status.replicas","labelSelectorPath":".status.selector"}},
   "schema":{"openAPIV3Schema":{"type":"object","properties":{
    "spec":{"type":"object","properties":{"replicas":{"type":"integer"},"image":{"type":"string"}}},
    "status":{"type":"object","properties":{"replicas":{"type":"integer"},"selector":{"type":"string"}}}}}}}]}}`

const scalers = "/apis/example.com/v1/namespaces/demo/scalers"

// newScaler starts a server with scalerCRD and one Scaler, s, at two
// replicas with status reporting two replicas selected by app=s.
func newScaler(t *testing.T) *client {
	t.Helper()
	c := newClient(t)
	c.createNamespace("demo")
	c.must(http.StatusCreated, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", scalerCRD)
	c.must(http.StatusCreated, "POST", scalers, `{"apiVersion":"example.com/v1","kind":"Scaler","metadata":{"name":"s"},"spec":{"replicas":2,"image":"nginx"}}`)
	c.must(http.StatusOK, "PATCH", scalers+"/s/status", `{"status":{"replicas":2,"selector":"app=s"}}`, "Content-Type", "application/merge-patch+json")
	return c
}

func scaleSpecReplicas(scale map[string]any) any {
	spec, _ := scale["spec"].(map[string]any)
	return spec["replicas"]
}

func TestScaleGet(t *testing.T) {
	c := newScaler(t)
	obj := c.must(http.StatusOK, "GET", scalers+"/s", nil)
	scale := c.must(http.StatusOK, "GET", scalers+"/s/scale", nil)
	if scale["apiVersion"] != "autoscaling/v1" || scale["kind"] != "Scale" {
		t.Errorf("got %v %v, want autoscaling/v1 Scale", scale["apiVersion"], scale["kind"])
	}
	m, om := meta(scale), meta(obj)
	for _, k := range []string{"name", "namespace", "uid", "resourceVersion", "creationTimestamp"} {
		if m[k] != om[k] {
			t.Errorf("got Scale metadata.%s %v, want the object's %v", k, m[k], om[k])
		}
	}
	if got := scaleSpecReplicas(scale); got != float64(2) {
		t.Errorf("got spec.replicas %v, want 2", got)
	}
	if got, want := mustJSON(scale["status"]), `{"replicas":2,"selector":"app=s"}`; got != want {
		t.Errorf("got status %s, want %s", got, want)
	}

	// Without replicas in the object the Scale has none either, and
	// status.replicas is 0.
	c.must(http.StatusCreated, "POST", scalers, `{"metadata":{"name":"empty"},"spec":{"image":"nginx"}}`)
	empty := c.must(http.StatusOK, "GET", scalers+"/empty/scale", nil)
	if got := scaleSpecReplicas(empty); got != nil {
		t.Errorf("got spec.replicas %v for an object without replicas, want none", got)
	}
	if got, want := mustJSON(empty["status"]), `{"replicas":0}`; got != want {
		t.Errorf("got status %s, want %s", got, want)
	}

	c.must(http.StatusNotFound, "GET", scalers+"/nope/scale", nil)
}

func TestScaleWrites(t *testing.T) {
	c := newScaler(t)
	const scale = scalers + "/s/scale"
	scaleBody := func(replicas int, rv string) string {
		m := map[string]any{"name": "s", "namespace": "demo"}
		if rv != "" {
			m["resourceVersion"] = rv
		}
		return mustJSON(map[string]any{"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": m, "spec": map[string]any{"replicas": replicas}})
	}
	tests := []struct {
		name         string
		method       string
		body         func(rv string) string
		ctype        string
		wantReplicas float64
	}{
		{"PUT", "PUT", func(string) string { return scaleBody(5, "") }, "application/json", 5},
		{"PUT with the current resourceVersion", "PUT", func(rv string) string { return scaleBody(6, rv) }, "application/json", 6},
		{"PUT as YAML", "PUT", func(string) string {
			return "apiVersion: autoscaling/v1\nkind: Scale\nmetadata:\n  name: s\nspec:\n  replicas: 7\n"
		}, "application/yaml", 7},
		{"merge patch", "PATCH", func(string) string { return `{"spec":{"replicas":3}}` }, "application/merge-patch+json", 3},
		{"JSON patch", "PATCH", func(string) string { return `[{"op":"replace","path":"/spec/replicas","value":4}]` }, "application/json-patch+json", 4},
		{"scale to zero", "PATCH", func(string) string { return `{"spec":{"replicas":0}}` }, "application/merge-patch+json", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := c.must(http.StatusOK, "GET", scalers+"/s", nil)
			got := c.must(http.StatusOK, tt.method, scale, tt.body(str(meta(before)["resourceVersion"])), "Content-Type", tt.ctype)
			if got["kind"] != "Scale" {
				t.Errorf("got kind %v, want the Scale back", got["kind"])
			}
			if r := scaleSpecReplicas(got); r != tt.wantReplicas && !(tt.wantReplicas == 0 && r == nil) {
				t.Errorf("got Scale spec.replicas %v, want %v", r, tt.wantReplicas)
			}
			after := c.must(http.StatusOK, "GET", scalers+"/s", nil)
			spec := after["spec"].(map[string]any)
			if spec["replicas"] != tt.wantReplicas || spec["image"] != "nginx" {
				t.Errorf("got object spec %v, want replicas %v and the image kept", spec, tt.wantReplicas)
			}
			if got, want := meta(after)["generation"], meta(before)["generation"].(float64)+1; got != want {
				t.Errorf("got generation %v, want %v", got, want)
			}
			if str(meta(got)["resourceVersion"]) != str(meta(after)["resourceVersion"]) {
				t.Errorf("got Scale resourceVersion %v, want the object's %v", meta(got)["resourceVersion"], meta(after)["resourceVersion"])
			}
			if after["status"].(map[string]any)["replicas"] != float64(2) {
				t.Errorf("a scale write changed status: %v", after["status"])
			}
		})
	}
}

func TestScaleRefusals(t *testing.T) {
	c := newScaler(t)
	const scale = scalers + "/s/scale"
	tests := []struct {
		name       string
		method     string
		body       string
		ctype      string
		wantCode   int
		wantReason string
		wantField  string
	}{
		{"negative replicas by PUT", "PUT", `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"s"},"spec":{"replicas":-1}}`, "application/json", 422, "Invalid", "spec.replicas"},
		{"negative replicas by patch", "PATCH", `{"spec":{"replicas":-3}}`, "application/merge-patch+json", 422, "Invalid", "spec.replicas"},
		{"stale resourceVersion", "PUT", `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"s","resourceVersion":"1"},"spec":{"replicas":9}}`, "application/json", 409, "Conflict", ""},
		{"stale resourceVersion by patch", "PATCH", `{"metadata":{"resourceVersion":"1"},"spec":{"replicas":9}}`, "application/merge-patch+json", 409, "Conflict", ""},
		{"name differs from the URL", "PUT", `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"other"},"spec":{"replicas":9}}`, "application/json", 400, "BadRequest", ""},
		{"not a Scale", "PUT", `{"apiVersion":"example.com/v1","kind":"Scaler","metadata":{"name":"s"},"spec":{"replicas":9}}`, "application/json", 400, "BadRequest", ""},
		// Custom resources take JSON and merge patches and apply, not
		// strategic merge patches, on every endpoint.
		{"strategic merge patch", "PATCH", `{"spec":{"replicas":9}}`, "application/strategic-merge-patch+json", 415, "UnsupportedMediaType", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := c.must(http.StatusOK, "GET", scalers+"/s", nil)
			r := c.do(tt.method, scale, tt.body, "Content-Type", tt.ctype)
			if r.code != tt.wantCode {
				t.Fatalf("got %d, want %d: %s", r.code, tt.wantCode, r.body)
			}
			st := r.json(t)
			if st["kind"] != "Status" || st["reason"] != tt.wantReason {
				t.Errorf("got %v, want a %s Status", st, tt.wantReason)
			}
			if tt.wantField != "" {
				details, _ := st["details"].(map[string]any)
				causes, _ := details["causes"].([]any)
				if len(causes) == 0 || causes[0].(map[string]any)["field"] != tt.wantField {
					t.Errorf("got causes %v, want one naming %s", causes, tt.wantField)
				}
			}
			after := c.must(http.StatusOK, "GET", scalers+"/s", nil)
			if mustJSON(after) != mustJSON(before) {
				t.Errorf("a refused scale write changed the object:\ngot  %s\nwant %s", mustJSON(after), mustJSON(before))
			}
		})
	}
	for _, method := range []string{"DELETE", "POST"} {
		if r := c.do(method, scale, nil); r.code != http.StatusMethodNotAllowed {
			t.Errorf("%s on /scale: got %d, want 405: %s", method, r.code, r.body)
		}
	}
}

func TestScaleDryRun(t *testing.T) {
	c := newScaler(t)
	before := c.must(http.StatusOK, "GET", scalers+"/s", nil)
	got := c.must(http.StatusOK, "PATCH", scalers+"/s/scale?dryRun=All", `{"spec":{"replicas":8}}`, "Content-Type", "application/merge-patch+json")
	if r := scaleSpecReplicas(got); r != float64(8) {
		t.Errorf("dry-run answered spec.replicas %v, want 8", r)
	}
	c.must(http.StatusOK, "PUT", scalers+"/s/scale?dryRun=All", `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"s"},"spec":{"replicas":8}}`)
	after := c.must(http.StatusOK, "GET", scalers+"/s", nil)
	if mustJSON(after) != mustJSON(before) {
		t.Errorf("dry-run scale changed the object:\ngot  %s\nwant %s", mustJSON(after), mustJSON(before))
	}
}

// TestScaleManagedFields checks that scale writes record their manager
// as owning the replicas in the object, and that server-side apply works
// on the scale subresource as on kube-apiserver (an autoscaler applying
// the replicas it wants).
func TestScaleManagedFields(t *testing.T) {
	c := newScaler(t)
	c.must(http.StatusOK, "PATCH", scalers+"/s/scale?fieldManager=hpa", `{"spec":{"replicas":3}}`, "Content-Type", "application/merge-patch+json")
	obj := c.must(http.StatusOK, "GET", scalers+"/s", nil)
	e := entryOf(managedOf(t, obj), "hpa", "Update")
	if e == nil || !e.owns("f:spec", "f:replicas") || e.Subresource != "scale" {
		t.Errorf("got hpa entry %+v, want a scale Update owning spec.replicas: %s", e, mustJSON(meta(obj)["managedFields"]))
	}

	r := c.do("PATCH", scalers+"/s/scale?fieldManager=autoscaler&force=true",
		`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"s","namespace":"demo"},"spec":{"replicas":6}}`,
		"Content-Type", applyType)
	if r.code != http.StatusOK {
		t.Fatalf("apply on /scale: got %d, want 200: %s", r.code, r.body)
	}
	if got := scaleSpecReplicas(r.json(t)); got != float64(6) {
		t.Errorf("apply on /scale answered spec.replicas %v, want 6", got)
	}
	obj = c.must(http.StatusOK, "GET", scalers+"/s", nil)
	if got := obj["spec"].(map[string]any)["replicas"]; got != float64(6) {
		t.Errorf("after apply on /scale: got spec.replicas %v, want 6", got)
	}
	if !strings.Contains(mustJSON(meta(obj)["managedFields"]), `"autoscaler"`) {
		t.Errorf("the applier of /scale is not recorded: %s", mustJSON(meta(obj)["managedFields"]))
	}
}

func TestScaleDiscovery(t *testing.T) {
	c := newScaler(t)
	disc := c.must(http.StatusOK, "GET", "/apis/example.com/v1", nil)
	var got map[string]any
	for _, r := range disc["resources"].([]any) {
		if rm := r.(map[string]any); rm["name"] == "scalers/scale" {
			got = rm
		}
	}
	if got == nil {
		t.Fatalf("discovery lacks scalers/scale: %s", mustJSON(disc))
	}
	if got["group"] != "autoscaling" || got["version"] != "v1" || got["kind"] != "Scale" || got["namespaced"] != true {
		t.Errorf("got %v, want autoscaling/v1 Scale, namespaced", got)
	}
	if v, want := mustJSON(got["verbs"]), `["get","patch","update"]`; v != want {
		t.Errorf("got verbs %s, want %s", v, want)
	}
}
