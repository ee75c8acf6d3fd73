package apiserver_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
)

const applyType = "application/apply-patch+yaml"

// gadgetCRD is a custom resource whose schema gives server-side apply
// something to merge by: spec.ports is a list keyed by name.
const gadgetCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
 "metadata":{"name":"gadgets.example.com"},
 "spec":{"group":"example.com","scope":"Namespaced",
  "names":{"plural":"gadgets","singular":"gadget","kind":"Gadget"},
  "versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
   "schema":{"openAPIV3Schema":{"type":"object","properties":{
    "spec":{"type":"object","properties":{
     "color":{"type":"string"},
     "size":{"type":"integer"},
     "ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
      "items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"port":{"type":"integer"}}}},
     "tags":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}}}},
    "status":{"type":"object","properties":{"phase":{"type":"string"}}}}}}}]}}`

// managedEntry is one entry of metadata.managedFields.
type managedEntry struct {
	Manager     string         `json:"manager"`
	Operation   string         `json:"operation"`
	APIVersion  string         `json:"apiVersion"`
	Time        string         `json:"time"`
	FieldsType  string         `json:"fieldsType"`
	FieldsV1    map[string]any `json:"fieldsV1"`
	Subresource string         `json:"subresource"`
}

func managedOf(t *testing.T, obj map[string]any) []managedEntry {
	t.Helper()
	var out []managedEntry
	if err := json.Unmarshal([]byte(mustJSON(meta(obj)["managedFields"])), &out); err != nil {
		t.Fatalf("metadata.managedFields: %v", err)
	}
	return out
}

// entryOf returns manager's entry for operation, or nil.
func entryOf(entries []managedEntry, manager, operation string) *managedEntry {
	for i := range entries {
		if entries[i].Manager == manager && entries[i].Operation == operation {
			return &entries[i]
		}
	}
	return nil
}

// owns reports whether e's field set holds the path of f: keys.
func (e *managedEntry) owns(path ...string) bool {
	if e == nil {
		return false
	}
	m := e.FieldsV1
	for _, p := range path {
		next, ok := m[p].(map[string]any)
		if !ok {
			return false
		}
		m = next
	}
	return true
}

func managers(entries []managedEntry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Manager+"/"+e.Operation)
	}
	slices.Sort(out)
	return out
}

func (c *client) apply(want int, path, manager, body string, query ...string) map[string]any {
	c.t.Helper()
	q := "?fieldManager=" + manager
	for _, p := range query {
		q += "&" + p
	}
	return c.must(want, "PATCH", path+q, body, "Content-Type", applyType)
}

func TestApplyCreatesAndRecordsManager(t *testing.T) {
	c := newClient(t)
	c.createNamespace("demo")
	const cm = "/api/v1/namespaces/demo/configmaps/applied"
	created := c.apply(http.StatusCreated, cm, "alice", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  labels:\n    app: web\ndata:\n  a: \"1\"\n")
	if got, want := mustJSON(created["data"]), `{"a":"1"}`; got != want {
		t.Errorf("got data %s, want %s", got, want)
	}
	if got := str(meta(created)["namespace"]); got != "demo" {
		t.Errorf("got namespace %q, want demo", got)
	}
	entries := managedOf(t, created)
	if len(entries) != 1 {
		t.Fatalf("got managedFields %+v, want one entry", entries)
	}
	e := entries[0]
	if e.Manager != "alice" || e.Operation != "Apply" || e.APIVersion != "v1" || e.FieldsType != "FieldsV1" || e.Time == "" {
		t.Errorf("got entry %+v, want alice Apply v1 FieldsV1 with a time", e)
	}
	for _, path := range [][]string{{"f:data", "f:a"}, {"f:metadata", "f:labels", "f:app"}} {
		if !e.owns(path...) {
			t.Errorf("alice does not own %v: %v", path, mustJSON(e.FieldsV1))
		}
	}
	got := c.must(http.StatusOK, "GET", cm, nil)
	if mustJSON(meta(got)["managedFields"]) != mustJSON(meta(created)["managedFields"]) {
		t.Errorf("GET managedFields %v, want what the apply answered %v", meta(got)["managedFields"], meta(created)["managedFields"])
	}

	// Applying the same configuration again changes nothing, not even
	// the resourceVersion.
	again := c.apply(http.StatusOK, cm, "alice", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n  labels:\n    app: web\ndata:\n  a: \"1\"\n")
	if got, want := str(meta(again)["resourceVersion"]), str(meta(created)["resourceVersion"]); got != want {
		t.Errorf("no-op apply: got resourceVersion %s, want %s", got, want)
	}

	// A field left out of the next configuration is removed: the manager
	// owned it and no longer wants it.
	next := c.apply(http.StatusOK, cm, "alice", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"applied"},"data":{"b":"2"}}`)
	if got, want := mustJSON(next["data"]), `{"b":"2"}`; got != want {
		t.Errorf("after dropping a and adding b: got data %s, want %s", got, want)
	}
	if labels := meta(next)["labels"]; labels != nil {
		t.Errorf("after dropping the labels: got labels %v, want none", labels)
	}
}

func TestApplyManagerFromWrites(t *testing.T) {
	c := newClient(t)
	c.createNamespace("demo")
	const cms = "/api/v1/namespaces/demo/configmaps"
	tests := []struct {
		name        string
		method      string
		path        string
		body        any
		headers     []string
		wantCode    int
		wantManager string
		wantOwns    []string
	}{
		{"create names the User-Agent", "POST", cms, configMap("demo", "w", map[string]any{"a": "1"}),
			[]string{"User-Agent", "kubectl-create/v1.33.0 (linux/amd64) kubernetes/abc"}, 201, "kubectl-create", []string{"f:data", "f:a"}},
		{"update names fieldManager", "PUT", cms + "/w?fieldManager=editor", configMap("demo", "w", map[string]any{"a": "1", "b": "2"}),
			[]string{"User-Agent", "ignored/1.0"}, 200, "editor", []string{"f:data", "f:b"}},
		{"merge patch", "PATCH", cms + "/w", `{"data":{"c":"3"}}`,
			[]string{"Content-Type", "application/merge-patch+json", "User-Agent", "patcher/2"}, 200, "patcher", []string{"f:data", "f:c"}},
		{"JSON patch", "PATCH", cms + "/w?fieldManager=jp", `[{"op":"add","path":"/data/d","value":"4"}]`,
			[]string{"Content-Type", "application/json-patch+json"}, 200, "jp", []string{"f:data", "f:d"}},
		{"strategic merge patch", "PATCH", cms + "/w?fieldManager=smp", `{"data":{"e":"5"}}`,
			[]string{"Content-Type", "application/strategic-merge-patch+json"}, 200, "smp", []string{"f:data", "f:e"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := c.must(tt.wantCode, tt.method, tt.path, tt.body, tt.headers...)
			e := entryOf(managedOf(t, got), tt.wantManager, "Update")
			if e == nil {
				t.Fatalf("no Update entry for %q: %v", tt.wantManager, managers(managedOf(t, got)))
			}
			if e.APIVersion != "v1" || e.Time == "" {
				t.Errorf("got entry %+v, want apiVersion v1 and a time", *e)
			}
			if !e.owns(tt.wantOwns...) {
				t.Errorf("%s does not own %v: %s", tt.wantManager, tt.wantOwns, mustJSON(e.FieldsV1))
			}
		})
	}
	// Every manager that set a field is still listed.
	got := managers(managedOf(t, c.must(200, "GET", cms+"/w", nil)))
	want := []string{"editor/Update", "jp/Update", "kubectl-create/Update", "patcher/Update", "smp/Update"}
	if !slices.Equal(got, want) {
		t.Errorf("got managers %v, want %v", got, want)
	}
}

func TestApplyConflicts(t *testing.T) {
	c := newClient(t)
	c.createNamespace("demo")
	const cm = "/api/v1/namespaces/demo/configmaps/shared"
	c.apply(http.StatusCreated, cm, "alice", `{"apiVersion":"v1","kind":"ConfigMap","data":{"a":"1","b":"1"}}`)
	c.must(http.StatusOK, "PATCH", cm+"?fieldManager=editor", `{"data":{"c":"1"}}`, "Content-Type", "application/merge-patch+json")

	tests := []struct {
		name        string
		body        string
		wantManager string
		wantFields  []string
	}{
		{"field of an applier", `{"apiVersion":"v1","kind":"ConfigMap","data":{"a":"2"}}`, `conflict with "alice"`, []string{".data.a"}},
		{"two fields", `{"apiVersion":"v1","kind":"ConfigMap","data":{"a":"2","b":"2"}}`, `conflict with "alice"`, []string{".data.a", ".data.b"}},
		{"field of an updater", `{"apiVersion":"v1","kind":"ConfigMap","data":{"c":"2"}}`, `conflict with "editor"`, []string{".data.c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := c.must(http.StatusOK, "GET", cm, nil)
			r := c.do("PATCH", cm+"?fieldManager=bob", tt.body, "Content-Type", applyType)
			if r.code != http.StatusConflict {
				t.Fatalf("got %d, want 409: %s", r.code, r.body)
			}
			st := r.json(t)
			if st["reason"] != "Conflict" || !strings.Contains(str(st["message"]), "Apply failed with") {
				t.Errorf("got Status %v, want reason Conflict and an apply failure message", st)
			}
			details, _ := st["details"].(map[string]any)
			causes, _ := details["causes"].([]any)
			var gotFields []string
			for _, cause := range causes {
				cm := cause.(map[string]any)
				if cm["reason"] != "FieldManagerConflict" || !strings.Contains(str(cm["message"]), tt.wantManager) {
					t.Errorf("got cause %v, want FieldManagerConflict naming %s", cm, tt.wantManager)
				}
				gotFields = append(gotFields, str(cm["field"]))
			}
			slices.Sort(gotFields)
			if !slices.Equal(gotFields, tt.wantFields) {
				t.Errorf("got conflicting fields %v, want %v", gotFields, tt.wantFields)
			}
			after := c.must(http.StatusOK, "GET", cm, nil)
			if str(meta(after)["resourceVersion"]) != str(meta(before)["resourceVersion"]) {
				t.Errorf("a refused apply wrote the object")
			}
		})
	}

	// The same value is no conflict: both managers own the field.
	same := c.apply(http.StatusOK, cm, "bob", `{"apiVersion":"v1","kind":"ConfigMap","data":{"a":"1"}}`)
	entries := managedOf(t, same)
	if !entryOf(entries, "alice", "Apply").owns("f:data", "f:a") || !entryOf(entries, "bob", "Apply").owns("f:data", "f:a") {
		t.Errorf("after applying the same value: want alice and bob to own data.a: %s", mustJSON(entries))
	}

	// force takes the fields over.
	forced := c.apply(http.StatusOK, cm, "bob", `{"apiVersion":"v1","kind":"ConfigMap","data":{"a":"2","c":"2"}}`, "force=true")
	if got, want := mustJSON(forced["data"]), `{"a":"2","b":"1","c":"2"}`; got != want {
		t.Errorf("after a forced apply: got data %s, want %s", got, want)
	}
	entries = managedOf(t, forced)
	if !entryOf(entries, "bob", "Apply").owns("f:data", "f:a") || !entryOf(entries, "bob", "Apply").owns("f:data", "f:c") {
		t.Errorf("bob does not own data.a and data.c after force: %s", mustJSON(entries))
	}
	if entryOf(entries, "alice", "Apply").owns("f:data", "f:a") {
		t.Errorf("alice still owns data.a after bob forced it: %s", mustJSON(entries))
	}
	if !entryOf(entries, "alice", "Apply").owns("f:data", "f:b") {
		t.Errorf("alice lost data.b, which bob did not apply: %s", mustJSON(entries))
	}
	if e := entryOf(entries, "editor", "Update"); e != nil {
		t.Errorf("editor still listed after losing its only field: %+v", *e)
	}

	// A field another manager also owns stays when one of them drops it.
	dropped := c.apply(http.StatusOK, cm, "alice", `{"apiVersion":"v1","kind":"ConfigMap","data":{"a":"2","b":"1"}}`, "force=true")
	if got, want := mustJSON(dropped["data"]), `{"a":"2","b":"1","c":"2"}`; got != want {
		t.Errorf("got data %s, want %s", got, want)
	}
	c.apply(http.StatusOK, cm, "alice", `{"apiVersion":"v1","kind":"ConfigMap","data":{"b":"1"}}`)
	kept := c.must(http.StatusOK, "GET", cm, nil)
	if got, want := mustJSON(kept["data"]), `{"a":"2","b":"1","c":"2"}`; got != want {
		t.Errorf("after alice dropped data.a, which bob also owns: got data %s, want %s", got, want)
	}
}

func TestApplyRefusals(t *testing.T) {
	c := newClient(t)
	c.createNamespace("demo")
	const cm = "/api/v1/namespaces/demo/configmaps/x"
	created := c.apply(http.StatusCreated, cm, "alice", `{"apiVersion":"v1","kind":"ConfigMap","data":{"a":"1"}}`)
	tests := []struct {
		name       string
		path       string
		body       string
		wantCode   int
		wantReason string
	}{
		{"no fieldManager", cm, `{"apiVersion":"v1","kind":"ConfigMap"}`, 422, "Invalid"},
		{"stale resourceVersion in the patch", cm + "?fieldManager=alice", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"resourceVersion":"1"},"data":{"a":"2"}}`, 409, "Conflict"},
		{"name differs from the URL", cm + "?fieldManager=alice", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"y"}}`, 400, "BadRequest"},
		{"wrong kind", cm + "?fieldManager=alice", `{"apiVersion":"v1","kind":"Secret"}`, 400, "BadRequest"},
		{"bad force", cm + "?fieldManager=alice&force=yes", `{"apiVersion":"v1","kind":"ConfigMap"}`, 400, "BadRequest"},
		{"wrong field type", cm + "?fieldManager=alice", `{"apiVersion":"v1","kind":"ConfigMap","data":{"a":1}}`, 400, "BadRequest"},
		{"managedFields in the patch", cm + "?fieldManager=alice", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"managedFields":[{"manager":"x","operation":"Apply"}]}}`, 400, "BadRequest"},
		{"unknown field with Strict", cm + "?fieldManager=alice&fieldValidation=Strict", `{"apiVersion":"v1","kind":"ConfigMap","bogus":1}`, 400, "BadRequest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.do("PATCH", tt.path, tt.body, "Content-Type", applyType)
			if r.code != tt.wantCode {
				t.Fatalf("got %d, want %d: %s", r.code, tt.wantCode, r.body)
			}
			if st := r.json(t); st["reason"] != tt.wantReason {
				t.Errorf("got reason %v, want %s: %v", st["reason"], tt.wantReason, st)
			}
			got := c.must(http.StatusOK, "GET", cm, nil)
			if str(meta(got)["resourceVersion"]) != str(meta(created)["resourceVersion"]) {
				t.Errorf("a refused apply wrote the object: %v", got)
			}
		})
	}
	// The current resourceVersion is a precondition that holds.
	rv := str(meta(created)["resourceVersion"])
	c.apply(http.StatusOK, cm, "alice", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"resourceVersion":"`+rv+`"},"data":{"a":"2"}}`)
}

func TestApplyDryRun(t *testing.T) {
	c := newClient(t)
	c.createNamespace("demo")
	const cms = "/api/v1/namespaces/demo/configmaps"

	// Absent: the answer is what would be created, and nothing is.
	dry := c.apply(http.StatusCreated, cms+"/new", "alice", `{"apiVersion":"v1","kind":"ConfigMap","data":{"a":"1"}}`, "dryRun=All")
	if got, want := mustJSON(dry["data"]), `{"a":"1"}`; got != want {
		t.Errorf("dry-run create: got data %s, want %s", got, want)
	}
	if entryOf(managedOf(t, dry), "alice", "Apply") == nil {
		t.Errorf("dry-run create: no alice Apply entry: %v", meta(dry)["managedFields"])
	}
	c.must(http.StatusNotFound, "GET", cms+"/new", nil)

	// Present: the answer shows the change, the object keeps its state.
	live := c.apply(http.StatusCreated, cms+"/old", "alice", `{"apiVersion":"v1","kind":"ConfigMap","data":{"a":"1"}}`)
	dry = c.apply(http.StatusOK, cms+"/old", "bob", `{"apiVersion":"v1","kind":"ConfigMap","data":{"a":"2"}}`, "dryRun=All", "force=true")
	if got, want := mustJSON(dry["data"]), `{"a":"2"}`; got != want {
		t.Errorf("dry-run apply: got data %s, want %s", got, want)
	}
	got := c.must(http.StatusOK, "GET", cms+"/old", nil)
	if mustJSON(got) != mustJSON(live) {
		t.Errorf("dry-run apply changed the object:\ngot  %s\nwant %s", mustJSON(got), mustJSON(live))
	}
	// A dry-run conflict is still a conflict.
	r := c.do("PATCH", cms+"/old?fieldManager=bob&dryRun=All", `{"apiVersion":"v1","kind":"ConfigMap","data":{"a":"2"}}`, "Content-Type", applyType)
	if r.code != http.StatusConflict {
		t.Errorf("dry-run conflicting apply: got %d, want 409: %s", r.code, r.body)
	}
}

func TestApplyCustomResource(t *testing.T) {
	c := newClient(t)
	c.createNamespace("demo")
	c.must(http.StatusCreated, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", gadgetCRD)
	const g = "/apis/example.com/v1/namespaces/demo/gadgets/g"

	created := c.apply(http.StatusCreated, g, "alice", `
apiVersion: example.com/v1
kind: Gadget
spec:
  color: red
  ports:
  - name: http
    port: 80
  tags: [a]
`)
	if got := meta(created)["generation"]; got != float64(1) {
		t.Errorf("got generation %v, want 1", got)
	}
	e := entryOf(managedOf(t, created), "alice", "Apply")
	if e == nil || e.APIVersion != "example.com/v1" {
		t.Fatalf("got managedFields %v, want an alice Apply entry for example.com/v1", meta(created)["managedFields"])
	}
	// A list keyed by name is owned item by item.
	if !e.owns("f:spec", "f:ports", `k:{"name":"http"}`, "f:port") {
		t.Errorf("alice's fields do not key spec.ports by name: %s", mustJSON(e.FieldsV1))
	}

	// Another manager adds its own items to the keyed list and the set.
	both := c.apply(http.StatusOK, g, "bob", `{"apiVersion":"example.com/v1","kind":"Gadget","spec":{"ports":[{"name":"https","port":443}],"tags":["b"]}}`)
	spec := both["spec"].(map[string]any)
	if got, want := mustJSON(spec["ports"]), `[{"name":"http","port":80},{"name":"https","port":443}]`; got != want {
		t.Errorf("got ports %s, want both managers' items %s", got, want)
	}
	if got, want := mustJSON(spec["tags"]), `["a","b"]`; got != want {
		t.Errorf("got tags %s, want %s", got, want)
	}
	if got := meta(both)["generation"]; got != float64(2) {
		t.Errorf("got generation %v, want 2", got)
	}

	// Changing an item alice owns conflicts on exactly that item's field.
	r := c.do("PATCH", g+"?fieldManager=bob", `{"apiVersion":"example.com/v1","kind":"Gadget","spec":{"ports":[{"name":"http","port":8080}]}}`, "Content-Type", applyType)
	if r.code != http.StatusConflict {
		t.Fatalf("got %d, want 409: %s", r.code, r.body)
	}
	if !strings.Contains(string(r.body), `.spec.ports[name=\"http\"].port`) || !strings.Contains(string(r.body), `conflict with \"alice\"`) {
		t.Errorf("conflict does not name .spec.ports[name=\"http\"].port and alice: %s", r.body)
	}

	// Dropping an item removes only that manager's item.
	dropped := c.apply(http.StatusOK, g, "bob", `{"apiVersion":"example.com/v1","kind":"Gadget","spec":{"tags":["b"]}}`)
	if got, want := mustJSON(dropped["spec"].(map[string]any)["ports"]), `[{"name":"http","port":80}]`; got != want {
		t.Errorf("after bob dropped https: got ports %s, want %s", got, want)
	}

	// Status is applied through /status and recorded for it.
	st := c.apply(http.StatusOK, g+"/status", "ctrl", `{"apiVersion":"example.com/v1","kind":"Gadget","status":{"phase":"Ready"},"spec":{"color":"blue"}}`)
	if got := st["status"].(map[string]any)["phase"]; got != "Ready" {
		t.Errorf("got status.phase %v, want Ready", got)
	}
	if got := st["spec"].(map[string]any)["color"]; got != "red" {
		t.Errorf("an apply to /status changed spec.color to %v", got)
	}
	se := entryOf(managedOf(t, st), "ctrl", "Apply")
	if se == nil || se.Subresource != "status" || !se.owns("f:status", "f:phase") || se.owns("f:spec") {
		t.Errorf("got ctrl entry %+v, want status subresource owning status.phase only", se)
	}
	// So is a status update, as an Update of the status subresource.
	upd := c.must(http.StatusOK, "PATCH", g+"/status?fieldManager=kubelet", `{"status":{"phase":"Done"}}`, "Content-Type", "application/merge-patch+json")
	ue := entryOf(managedOf(t, upd), "kubelet", "Update")
	if ue == nil || ue.Subresource != "status" || !ue.owns("f:status", "f:phase") {
		t.Errorf("got kubelet entry %+v, want a status Update owning status.phase", ue)
	}
	// ctrl applies again, forcing the phase back.
	c.apply(http.StatusOK, g+"/status", "ctrl", `{"apiVersion":"example.com/v1","kind":"Gadget","status":{"phase":"Ready"}}`, "force=true")
	// The main resource ignores status in an apply.
	main := c.apply(http.StatusOK, g, "alice", `{"apiVersion":"example.com/v1","kind":"Gadget","spec":{"color":"red","ports":[{"name":"http","port":80}],"tags":["a"]},"status":{"phase":"Broken"}}`)
	if got := main["status"].(map[string]any)["phase"]; got != "Ready" {
		t.Errorf("an apply to the main resource changed status.phase to %v", got)
	}

	// A custom resource applied without a schema-valid value is refused.
	r = c.do("PATCH", g+"?fieldManager=alice", `{"apiVersion":"example.com/v1","kind":"Gadget","spec":{"size":"big"}}`, "Content-Type", applyType)
	if r.code != http.StatusUnprocessableEntity && r.code != http.StatusBadRequest {
		t.Errorf("apply with spec.size a string: got %d, want 400 or 422: %s", r.code, r.body)
	}
}
