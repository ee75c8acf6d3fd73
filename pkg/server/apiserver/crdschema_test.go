package apiserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

const crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

// thingCRD has a schema with every kind of check: bounds, an enum, a
// pattern, required fields, defaults, CEL rules (one a transition rule)
// and a status with its own checks.
const thingCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
 "metadata":{"name":"things.example.com"},
 "spec":{"group":"example.com","scope":"Namespaced",
  "names":{"plural":"things","singular":"thing","kind":"Thing"},
  "versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
   "schema":{"openAPIV3Schema":{"type":"object","properties":{
    "spec":{"type":"object","required":["name"],
     "x-kubernetes-validations":[{"rule":"self.minReplicas <= self.replicas","message":"minReplicas must not exceed replicas"}],
     "properties":{
      "name":{"type":"string","pattern":"^[a-z]+$"},
      "replicas":{"type":"integer","minimum":0,"maximum":10,"default":1},
      "minReplicas":{"type":"integer","default":0},
      "color":{"type":"string","enum":["red","blue"],"default":"red"},
      "size":{"type":"integer","x-kubernetes-validations":[{"rule":"self >= oldSelf","message":"size may not shrink"}]},
      "tags":{"type":"array","maxItems":2,"items":{"type":"string"}},
      "nested":{"type":"object","properties":{"a":{"type":"string"}}}}},
    "status":{"type":"object",
     "x-kubernetes-validations":[{"rule":"!has(self.ready) || self.ready >= 0","message":"ready must not be negative"}],
     "properties":{
      "phase":{"type":"string","enum":["Pending","Ready"]},
      "ready":{"type":"integer"}}}}}}}]}}`

const things = "/apis/example.com/v1/namespaces/demo/things"

func newThings(t *testing.T) *client {
	t.Helper()
	c := newClient(t)
	c.createNamespace("demo")
	c.must(http.StatusCreated, "POST", crds, thingCRD)
	return c
}

func thing(name string, spec map[string]any) map[string]any {
	return map[string]any{"apiVersion": "example.com/v1", "kind": "Thing", "metadata": map[string]any{"name": name}, "spec": spec}
}

// cause is one entry of a Status's details.causes.
type cause struct {
	Reason  string `json:"reason"`
	Message string `json:"message"`
	Field   string `json:"field"`
}

func causesOf(t *testing.T, r response) []cause {
	t.Helper()
	var st struct {
		Details struct {
			Causes []cause `json:"causes"`
		} `json:"details"`
	}
	if err := json.Unmarshal(r.body, &st); err != nil {
		t.Fatalf("response is not a Status: %v: %s", err, r.body)
	}
	return st.Details.Causes
}

// warnings returns the texts of a response's Warning headers.
func warnings(r response) []string {
	var out []string
	for _, w := range r.header.Values("Warning") {
		_, text, _ := strings.Cut(w, `299 - "`)
		out = append(out, strings.ReplaceAll(strings.TrimSuffix(text, `"`), `\"`, `"`))
	}
	return out
}

func TestCRDSchemaRequiredAndChecked(t *testing.T) {
	c := newClient(t)
	crd := func(version string) string {
		return `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
 "metadata":{"name":"bads.example.com"},
 "spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"bads","kind":"Bad"},
  "versions":[` + version + `]}}`
	}
	const root = "spec.versions[0].schema.openAPIV3Schema"
	tests := []struct {
		name       string
		version    string
		wantField  string
		wantReason string
		wantText   string
	}{
		{"no schema", `{"name":"v1","served":true,"storage":true}`,
			root, "FieldValueRequired", "schemas are required"},
		{"root not an object", `{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"string"}}}`,
			root + ".type", "FieldValueInvalid", "must be object at the root"},
		{"field without a type", `{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"properties":{"a":{"type":"string"}}}}}}}`,
			root + ".properties[spec].type", "FieldValueRequired", "must not be empty for specified object fields"},
		{"bad pattern", `{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"a":{"type":"string","pattern":"(["}}}}}}}`,
			root + ".properties[spec].properties[a].pattern", "FieldValueInvalid", "must be a valid regular expression"},
		{"default of the wrong type", `{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"n":{"type":"integer","default":"x"}}}}}}}`,
			root + ".properties[spec].properties[n].default", "FieldValueTypeInvalid", "must be of type integer"},
		{"CEL rule that does not parse", `{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-validations":[{"rule":"self.a >"}],"properties":{"a":{"type":"integer"}}}}}}}`,
			root + ".properties[spec].x-kubernetes-validations[0].rule", "FieldValueInvalid", "compilation failed"},
		{"CEL rule on an undeclared field", `{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-validations":[{"rule":"self.missing == 1"}],"properties":{"a":{"type":"integer"}}}}}}}`,
			root + ".properties[spec].x-kubernetes-validations[0].rule", "FieldValueInvalid", "compilation failed"},
		{"CEL rule that is not a boolean", `{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-validations":[{"rule":"self.a + 1"}],"properties":{"a":{"type":"integer"}}}}}}}`,
			root + ".properties[spec].x-kubernetes-validations[0].rule", "FieldValueInvalid", "must evaluate to a bool"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.do("POST", crds, crd(tt.version))
			if r.code != http.StatusUnprocessableEntity {
				t.Fatalf("got %d, want 422: %s", r.code, r.body)
			}
			var found bool
			for _, cs := range causesOf(t, r) {
				if cs.Field == tt.wantField {
					found = true
					if cs.Reason != tt.wantReason || !strings.Contains(cs.Message, tt.wantText) {
						t.Errorf("got cause %+v, want reason %s and a message containing %q", cs, tt.wantReason, tt.wantText)
					}
				}
			}
			if !found {
				t.Errorf("no cause names %s: %s", tt.wantField, r.body)
			}
			c.must(http.StatusNotFound, "GET", crds+"/bads.example.com", nil)
			c.must(http.StatusNotFound, "GET", "/apis/example.com/v1/bads", nil)
		})
	}

	// An update to a bad schema is refused and the old one keeps serving.
	c.createNamespace("demo")
	created := c.must(http.StatusCreated, "POST", crds, thingCRD)
	vs := created["spec"].(map[string]any)["versions"].([]any)
	vs[0].(map[string]any)["schema"] = map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "properties": map[string]any{"spec": map[string]any{"x-kubernetes-validations": []any{map[string]any{"rule": "self >"}}}}}}
	r := c.do("PUT", crds+"/things.example.com", created)
	if r.code != http.StatusUnprocessableEntity || !strings.Contains(string(r.body), root+".properties[spec]") {
		t.Fatalf("update to a bad schema: got %d, want 422 naming %s.properties[spec]: %s", r.code, root, r.body)
	}
	if r := c.do("POST", things, thing("t", map[string]any{"name": "t", "replicas": 11})); r.code != http.StatusUnprocessableEntity {
		t.Errorf("after a refused CRD update the old schema should still apply: got %d, want 422: %s", r.code, r.body)
	}
}

// rulesUnchecked is the cause kube adds, in place of the CEL rules' own,
// when schema errors could mislead the rules.
var rulesUnchecked = cause{"FieldValueInvalid", `Invalid value: "null": some validation rules were not checked because the object was invalid`, "<nil>"}

func TestCRDSchemaValidation(t *testing.T) {
	c := newThings(t)
	tests := []struct {
		name string
		spec map[string]any
		want []cause // reason, field and a part of the message
	}{
		{"above maximum", map[string]any{"name": "a", "replicas": 11},
			[]cause{{"FieldValueInvalid", "spec.replicas in body should be less than or equal to 10", "spec.replicas"}}},
		{"below minimum", map[string]any{"name": "a", "replicas": -1},
			[]cause{ // rules run beside errors that cannot mislead them
				{"FieldValueInvalid", `Invalid value: "object": minReplicas must not exceed replicas`, "spec"},
				{"FieldValueInvalid", "spec.replicas in body should be greater than or equal to 0", "spec.replicas"},
			}},
		{"not in the enum", map[string]any{"name": "a", "color": "green"},
			[]cause{rulesUnchecked, {"FieldValueNotSupported", `supported values: "red", "blue"`, "spec.color"}}},
		{"pattern", map[string]any{"name": "Bad"},
			[]cause{{"FieldValueInvalid", "spec.name in body should match '^[a-z]+$'", "spec.name"}}},
		{"required", map[string]any{"replicas": 2},
			[]cause{rulesUnchecked, {"FieldValueRequired", "Required value", "spec.name"}}},
		{"wrong type", map[string]any{"name": "a", "replicas": "three"},
			[]cause{rulesUnchecked, {"FieldValueTypeInvalid", "spec.replicas in body must be of type integer", "spec.replicas"}}},
		{"too many items", map[string]any{"name": "a", "tags": []any{"x", "y", "z"}},
			[]cause{rulesUnchecked, {"FieldValueTooMany", "must have at most 2 items", "spec.tags"}}},
		{"several at once", map[string]any{"name": "a", "replicas": 11, "color": "green"},
			[]cause{
				rulesUnchecked,
				{"FieldValueNotSupported", `supported values: "red", "blue"`, "spec.color"},
				{"FieldValueInvalid", "should be less than or equal to 10", "spec.replicas"},
			}},
		{"CEL rule", map[string]any{"name": "a", "replicas": 3, "minReplicas": 5},
			[]cause{{"FieldValueInvalid", "minReplicas must not exceed replicas", "spec"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.do("POST", things, thing("t", tt.spec))
			if r.code != http.StatusUnprocessableEntity {
				t.Fatalf("got %d, want 422: %s", r.code, r.body)
			}
			st := r.json(t)
			if st["reason"] != "Invalid" || !strings.HasPrefix(str(st["message"]), `Thing.example.com "t" is invalid`) {
				t.Errorf("got reason %v message %q, want Invalid and `Thing.example.com \"t\" is invalid: ...`", st["reason"], st["message"])
			}
			got := causesOf(t, r)
			slices.SortFunc(got, func(a, b cause) int { return strings.Compare(a.Field, b.Field) })
			if len(got) != len(tt.want) {
				t.Fatalf("got causes %+v, want %+v", got, tt.want)
			}
			for i, w := range tt.want {
				if g := got[i]; g.Reason != w.Reason || g.Field != w.Field || !strings.Contains(g.Message, w.Message) {
					t.Errorf("got cause %+v, want reason %s field %s and a message containing %q", g, w.Reason, w.Field, w.Message)
				}
			}
			c.must(http.StatusNotFound, "GET", things+"/t", nil)
		})
	}

	// Updates and patches are checked the same way.
	c.must(http.StatusCreated, "POST", things, thing("ok", map[string]any{"name": "ok"}))
	r := c.do("PATCH", things+"/ok", `{"spec":{"replicas":11}}`, "Content-Type", "application/merge-patch+json")
	if r.code != http.StatusUnprocessableEntity || len(causesOf(t, r)) != 1 || causesOf(t, r)[0].Field != "spec.replicas" {
		t.Errorf("merge patch above maximum: got %d, want 422 naming spec.replicas: %s", r.code, r.body)
	}
	cur := c.must(http.StatusOK, "GET", things+"/ok", nil)
	cur["spec"].(map[string]any)["color"] = "green"
	if r := c.do("PUT", things+"/ok", cur); r.code != http.StatusUnprocessableEntity || !strings.Contains(string(r.body), "spec.color") {
		t.Errorf("update to a value outside the enum: got %d, want 422 naming spec.color: %s", r.code, r.body)
	}
	// force: the create's manager owns the replicas.
	r = c.do("PATCH", things+"/ok?fieldManager=m&force=true", `{"apiVersion":"example.com/v1","kind":"Thing","metadata":{"name":"ok"},"spec":{"name":"ok","minReplicas":4,"replicas":2}}`, "Content-Type", applyType)
	if r.code != http.StatusUnprocessableEntity || !strings.Contains(string(r.body), "minReplicas must not exceed replicas") {
		t.Errorf("apply breaking a CEL rule: got %d, want 422 with the rule's message: %s", r.code, r.body)
	}
}

func TestCRDTransitionRule(t *testing.T) {
	c := newThings(t)
	// No old object on create: the transition rule does not run.
	c.must(http.StatusCreated, "POST", things, thing("t", map[string]any{"name": "t", "size": 5}))
	tests := []struct {
		name     string
		size     int
		wantCode int
	}{
		{"grow", 6, http.StatusOK},
		{"same", 6, http.StatusOK},
		{"shrink", 3, http.StatusUnprocessableEntity},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.do("PATCH", things+"/t", mustJSON(map[string]any{"spec": map[string]any{"size": tt.size}}), "Content-Type", "application/merge-patch+json")
			if r.code != tt.wantCode {
				t.Fatalf("got %d, want %d: %s", r.code, tt.wantCode, r.body)
			}
			if tt.wantCode == http.StatusOK {
				return
			}
			got := causesOf(t, r)
			if len(got) != 1 || got[0].Field != "spec.size" || !strings.Contains(got[0].Message, "size may not shrink") {
				t.Errorf("got causes %+v, want one on spec.size with the rule's message", got)
			}
		})
	}
	// Removing the field is no transition the rule can see.
	c.must(http.StatusOK, "PATCH", things+"/t", `{"spec":{"size":null}}`, "Content-Type", "application/merge-patch+json")
}

func TestCRDPruning(t *testing.T) {
	c := newThings(t)
	tests := []struct {
		name         string
		query        string
		body         map[string]any
		wantCode     int
		wantUnknown  []string
		wantWarnings bool
	}{
		{"default warns", "", map[string]any{"name": "a", "x": 1}, 201, []string{`unknown field "spec.x"`}, true},
		{"Warn", "?fieldValidation=Warn", map[string]any{"name": "a", "nested": map[string]any{"a": "k", "b": "u"}}, 201, []string{`unknown field "spec.nested.b"`}, true},
		{"Ignore", "?fieldValidation=Ignore", map[string]any{"name": "a", "x": 1}, 201, []string{`unknown field "spec.x"`}, false},
		{"Strict", "?fieldValidation=Strict", map[string]any{"name": "a", "x": 1}, 400, []string{`unknown field "spec.x"`}, false},
		{"Strict with two", "?fieldValidation=Strict", map[string]any{"name": "a", "x": 1, "y": 2}, 400, []string{`unknown field "spec.x"`, `unknown field "spec.y"`}, false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := "p" + string(rune('a'+i))
			obj := thing(name, tt.body)
			r := c.do("POST", things+tt.query, obj)
			if r.code != tt.wantCode {
				t.Fatalf("got %d, want %d: %s", r.code, tt.wantCode, r.body)
			}
			got := warnings(r)
			if tt.wantWarnings && !slices.Equal(got, tt.wantUnknown) {
				t.Errorf("got warnings %q, want %q", got, tt.wantUnknown)
			}
			if !tt.wantWarnings && len(got) > 0 {
				t.Errorf("got warnings %q, want none", got)
			}
			if tt.wantCode != http.StatusCreated {
				st := r.json(t)
				for _, u := range tt.wantUnknown {
					if st["reason"] != "BadRequest" || !strings.Contains(str(st["message"]), u) {
						t.Errorf("got %v, want a BadRequest naming %s", st, u)
					}
				}
				c.must(http.StatusNotFound, "GET", things+"/"+name, nil)
				return
			}
			stored := c.must(http.StatusOK, "GET", things+"/"+name, nil)
			spec := stored["spec"].(map[string]any)
			if _, ok := spec["x"]; ok {
				t.Errorf("unknown field kept: %v", spec)
			}
			if n, ok := spec["nested"].(map[string]any); ok && (n["b"] != nil || n["a"] != "k") {
				t.Errorf("got nested %v, want a kept and b dropped", n)
			}
		})
	}

	// Unknown fields outside spec, through every kind of write.
	c.must(http.StatusCreated, "POST", things, thing("w", map[string]any{"name": "w"}))
	writes := []struct {
		name        string
		method      string
		body        string
		ctype       string
		wantWarning string
	}{
		{"update", "PUT", `{"apiVersion":"example.com/v1","kind":"Thing","metadata":{"name":"w"},"spec":{"name":"w"},"extra":1}`, "application/json", `unknown field "extra"`},
		{"merge patch", "PATCH", `{"spec":{"bogus":true}}`, "application/merge-patch+json", `unknown field "spec.bogus"`},
		{"JSON patch", "PATCH", `[{"op":"add","path":"/spec/bogus","value":1}]`, "application/json-patch+json", `unknown field "spec.bogus"`},
	}
	for _, tt := range writes {
		t.Run(tt.name, func(t *testing.T) {
			r := c.do(tt.method, things+"/w?fieldValidation=Strict", tt.body, "Content-Type", tt.ctype)
			if r.code != http.StatusBadRequest || !strings.Contains(string(r.body), strings.ReplaceAll(tt.wantWarning, `"`, `\"`)) {
				t.Errorf("Strict: got %d, want 400 naming %s: %s", r.code, tt.wantWarning, r.body)
			}
			r = c.do(tt.method, things+"/w", tt.body, "Content-Type", tt.ctype)
			if r.code != http.StatusOK {
				t.Fatalf("got %d, want 200: %s", r.code, r.body)
			}
			if got := warnings(r); !slices.Equal(got, []string{tt.wantWarning}) {
				t.Errorf("got warnings %q, want %q", got, tt.wantWarning)
			}
			obj := r.json(t)
			if _, ok := obj["extra"]; ok {
				t.Errorf("unknown top-level field kept: %v", obj)
			}
			if _, ok := obj["spec"].(map[string]any)["bogus"]; ok {
				t.Errorf("unknown spec field kept: %v", obj["spec"])
			}
		})
	}
}

func TestCRDDefaults(t *testing.T) {
	c := newThings(t)
	created := c.must(http.StatusCreated, "POST", things, thing("d", map[string]any{"name": "d"}))
	want := `{"color":"red","minReplicas":0,"name":"d","replicas":1}`
	if got := mustJSON(created["spec"]); got != want {
		t.Errorf("create: got spec %s, want defaults %s", got, want)
	}
	if got := mustJSON(c.must(http.StatusOK, "GET", things+"/d", nil)["spec"]); got != want {
		t.Errorf("GET: got spec %s, want %s", got, want)
	}
	// A set value is kept; a removed one is defaulted again.
	set := c.must(http.StatusOK, "PATCH", things+"/d", `{"spec":{"color":"blue","replicas":null}}`, "Content-Type", "application/merge-patch+json")
	if got, want := mustJSON(set["spec"]), `{"color":"blue","minReplicas":0,"name":"d","replicas":1}`; got != want {
		t.Errorf("after a patch: got spec %s, want %s", got, want)
	}
	// Defaults apply in a dry run too.
	dry := c.must(http.StatusCreated, "POST", things+"?dryRun=All", thing("dry", map[string]any{"name": "dry"}))
	if got := dry["spec"].(map[string]any)["replicas"]; got != float64(1) {
		t.Errorf("dry-run create: got replicas %v, want the default 1", got)
	}
}

// TestCRDDefaultsOnRead adds a default to the schema of a CRD with
// objects: reading an old object shows it, as kube-apiserver defaults
// objects read from storage, without writing them.
func TestCRDDefaultsOnRead(t *testing.T) {
	c := newThings(t)
	old := c.must(http.StatusCreated, "POST", things, thing("old", map[string]any{"name": "old"}))
	if _, ok := old["spec"].(map[string]any)["nested"]; ok {
		t.Fatalf("nested set before it has a default: %v", old["spec"])
	}

	crd := c.must(http.StatusOK, "GET", crds+"/things.example.com", nil)
	v := crd["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any)
	spec := v["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)["properties"].(map[string]any)["spec"].(map[string]any)
	nested := spec["properties"].(map[string]any)["nested"].(map[string]any)
	nested["default"] = map[string]any{}
	nested["properties"].(map[string]any)["a"].(map[string]any)["default"] = "dflt"
	c.must(http.StatusOK, "PUT", crds+"/things.example.com", crd)

	got := c.must(http.StatusOK, "GET", things+"/old", nil)
	if n := got["spec"].(map[string]any)["nested"]; mustJSON(n) != `{"a":"dflt"}` {
		t.Errorf("GET of an old object: got spec.nested %v, want the new default {a: dflt}", n)
	}
	if str(meta(got)["resourceVersion"]) != str(meta(old)["resourceVersion"]) {
		t.Errorf("reading defaulted the object in storage: resourceVersion %v, was %v", meta(got)["resourceVersion"], meta(old)["resourceVersion"])
	}
	list := c.must(http.StatusOK, "GET", things, nil)
	items := list["items"].([]any)
	if len(items) != 1 || mustJSON(items[0].(map[string]any)["spec"].(map[string]any)["nested"]) != `{"a":"dflt"}` {
		t.Errorf("LIST of an old object: got %s, want spec.nested defaulted", mustJSON(items))
	}
	kv, err := c.srv.Storage.Get(context.Background(), "/registry/example.com/things/demo/old")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(kv.Value), "dflt") {
		t.Errorf("the stored object was rewritten with the default: %s", kv.Value)
	}
}

func TestCRDStatusChecks(t *testing.T) {
	c := newThings(t)
	c.must(http.StatusCreated, "POST", things, thing("s", map[string]any{"name": "s"}))
	const status = things + "/s/status"
	tests := []struct {
		name         string
		query        string
		body         string
		wantCode     int
		wantField    string
		wantText     string
		wantWarnings []string
	}{
		{"valid", "", `{"status":{"phase":"Ready","ready":1}}`, 200, "", "", nil},
		{"enum", "", `{"status":{"phase":"Lost"}}`, 422, "status.phase", `supported values: "Pending", "Ready"`, nil},
		{"wrong type", "", `{"status":{"ready":"yes"}}`, 422, "status.ready", "must be of type integer", nil},
		{"CEL rule", "", `{"status":{"ready":-1}}`, 422, "status", "ready must not be negative", nil},
		{"unknown field warns", "", `{"status":{"phase":"Ready","extra":1}}`, 200, "", "", []string{`unknown field "status.extra"`}},
		{"unknown field with Strict", "?fieldValidation=Strict", `{"status":{"extra":1}}`, 400, "", `unknown field \"status.extra\"`, nil},
		{"spec is ignored, valid or not", "", `{"spec":{"replicas":99},"status":{"phase":"Pending"}}`, 200, "", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := c.must(http.StatusOK, "GET", things+"/s", nil)
			r := c.do("PATCH", status+tt.query, tt.body, "Content-Type", "application/merge-patch+json")
			if r.code != tt.wantCode {
				t.Fatalf("got %d, want %d: %s", r.code, tt.wantCode, r.body)
			}
			if got := warnings(r); !slices.Equal(got, tt.wantWarnings) {
				t.Errorf("got warnings %q, want %q", got, tt.wantWarnings)
			}
			if tt.wantField != "" {
				got := causesOf(t, r)
				// a schema error that blocks the CEL rules adds rulesUnchecked
				if len(got) == 2 && got[1].Field == rulesUnchecked.Field && strings.Contains(got[1].Message, rulesUnchecked.Message) {
					got = got[:1]
				}
				if len(got) != 1 || got[0].Field != tt.wantField || !strings.Contains(got[0].Message, tt.wantText) {
					t.Errorf("got causes %+v, want one on %s containing %q", got, tt.wantField, tt.wantText)
				}
			} else if tt.wantText != "" && !strings.Contains(string(r.body), tt.wantText) {
				t.Errorf("got %s, want it to contain %s", r.body, tt.wantText)
			}
			after := c.must(http.StatusOK, "GET", things+"/s", nil)
			if tt.wantCode != http.StatusOK && mustJSON(after) != mustJSON(before) {
				t.Errorf("a refused status write changed the object")
			}
			if tt.wantCode == http.StatusOK {
				if _, ok := after["status"].(map[string]any)["extra"]; ok {
					t.Errorf("unknown status field kept: %v", after["status"])
				}
				if mustJSON(after["spec"]) != mustJSON(before["spec"]) {
					t.Errorf("a status write changed spec from %v to %v", before["spec"], after["spec"])
				}
			}
		})
	}
	// PUT on /status is checked too.
	cur := c.must(http.StatusOK, "GET", things+"/s", nil)
	cur["status"] = map[string]any{"phase": "Gone"}
	if r := c.do("PUT", status, cur); r.code != http.StatusUnprocessableEntity || !strings.Contains(string(r.body), "status.phase") {
		t.Errorf("PUT of an invalid status: got %d, want 422 naming status.phase: %s", r.code, r.body)
	}
}

// editionCRD serves two versions without conversion: v1 is stored, and
// v1beta1 has no spec.color.
const editionCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
 "metadata":{"name":"editions.example.com"},
 "spec":{"group":"example.com","scope":"Namespaced","conversion":{"strategy":"None"},
  "names":{"plural":"editions","singular":"edition","kind":"Edition"},
  "versions":[
   {"name":"v1","served":true,"storage":true,
    "schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"replicas":{"type":"integer","maximum":5},"color":{"type":"string"}}}}}}},
   {"name":"v1beta1","served":true,"storage":false,
    "schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"replicas":{"type":"integer"}}}}}}}]}}`

func TestCRDVersions(t *testing.T) {
	c := newClient(t)
	c.createNamespace("demo")
	crd := c.must(http.StatusCreated, "POST", crds, editionCRD)
	if got := mustJSON(crd["status"].(map[string]any)["storedVersions"]); got != `["v1"]` {
		t.Errorf("got storedVersions %s, want [v1]", got)
	}
	const v1, v1beta1 = "/apis/example.com/v1/namespaces/demo/editions", "/apis/example.com/v1beta1/namespaces/demo/editions"
	made := c.must(http.StatusCreated, "POST", v1beta1, `{"apiVersion":"example.com/v1beta1","kind":"Edition","metadata":{"name":"beta"},"spec":{"replicas":2}}`)
	if made["apiVersion"] != "example.com/v1beta1" {
		t.Errorf("create through v1beta1 answered apiVersion %v", made["apiVersion"])
	}
	c.must(http.StatusCreated, "POST", v1, `{"apiVersion":"example.com/v1","kind":"Edition","metadata":{"name":"ga"},"spec":{"replicas":3,"color":"red"}}`)

	tests := []struct {
		path           string
		name           string
		wantAPIVersion string
		wantSpec       string
	}{
		{v1, "beta", "example.com/v1", `{"replicas":2}`},
		{v1beta1, "beta", "example.com/v1beta1", `{"replicas":2}`},
		{v1, "ga", "example.com/v1", `{"color":"red","replicas":3}`},
		// Read as v1beta1, whose schema has no color, color is pruned.
		{v1beta1, "ga", "example.com/v1beta1", `{"replicas":3}`},
	}
	for _, tt := range tests {
		t.Run(tt.path+"/"+tt.name, func(t *testing.T) {
			got := c.must(http.StatusOK, "GET", tt.path+"/"+tt.name, nil)
			if got["apiVersion"] != tt.wantAPIVersion || got["kind"] != "Edition" {
				t.Errorf("got %v %v, want %s Edition", got["apiVersion"], got["kind"], tt.wantAPIVersion)
			}
			if s := mustJSON(got["spec"]); s != tt.wantSpec {
				t.Errorf("got spec %s, want %s", s, tt.wantSpec)
			}
		})
	}
	for _, path := range []string{v1, v1beta1} {
		version := path[len("/apis/example.com/") : len(path)-len("/namespaces/demo/editions")]
		list := c.must(http.StatusOK, "GET", path, nil)
		if list["apiVersion"] != "example.com/"+version || list["kind"] != "EditionList" {
			t.Errorf("list through %s: got %v %v", version, list["apiVersion"], list["kind"])
		}
		for _, it := range list["items"].([]any) {
			im := it.(map[string]any)
			if av := im["apiVersion"]; av != "example.com/"+version {
				t.Errorf("list through %s: got an item of apiVersion %v", version, av)
			}
			// Lists prune by the version's schema as GETs do.
			if _, ok := im["spec"].(map[string]any)["color"]; ok && version == "v1beta1" {
				t.Errorf("list through v1beta1: got %s with spec.color, which v1beta1 does not have", mustJSON(im["spec"]))
			}
		}
	}
	// Each version checks writes by its own schema.
	if r := c.do("POST", v1, `{"metadata":{"name":"big"},"spec":{"replicas":9}}`); r.code != http.StatusUnprocessableEntity {
		t.Errorf("v1 create above its maximum: got %d, want 422: %s", r.code, r.body)
	}
	r := c.do("POST", v1beta1, `{"metadata":{"name":"colored"},"spec":{"replicas":1,"color":"blue"}}`)
	if r.code != http.StatusCreated || !slices.Equal(warnings(r), []string{`unknown field "spec.color"`}) {
		t.Errorf("v1beta1 create with v1's field: got %d warnings %q, want 201 warning of spec.color", r.code, warnings(r))
	}
}

// TestCRDSelectableFields lists custom objects by fields the CRD
// declares selectable.
func TestCRDSelectableFields(t *testing.T) {
	c := newClient(t)
	c.createNamespace("demo")
	crd := strings.Replace(thingCRD, `"subresources":{"status":{}},`,
		`"subresources":{"status":{}},"selectableFields":[{"jsonPath":".spec.color"},{"jsonPath":".spec.replicas"}],`, 1)
	c.must(http.StatusCreated, "POST", crds, crd)
	for _, o := range []struct {
		name, color string
		replicas    int
	}{{"a", "red", 1}, {"b", "blue", 2}, {"c", "blue", 3}} {
		c.must(http.StatusCreated, "POST", things, thing(o.name, map[string]any{"name": o.name, "color": o.color, "replicas": o.replicas}))
	}
	tests := []struct {
		selector  string
		wantCode  int
		wantNames []string
	}{
		{"spec.color=blue", 200, []string{"b", "c"}},
		{"spec.color!=blue", 200, []string{"a"}},
		{"spec.replicas=2", 200, []string{"b"}},
		{"spec.color=blue,metadata.name=c", 200, []string{"c"}},
		{"spec.name=a", 400, nil},
		{"status.phase=Ready", 400, nil},
	}
	for _, tt := range tests {
		t.Run(tt.selector, func(t *testing.T) {
			r := c.do("GET", things+"?fieldSelector="+strings.ReplaceAll(tt.selector, "=", "%3D"), nil)
			if r.code != tt.wantCode {
				t.Fatalf("got %d, want %d: %s", r.code, tt.wantCode, r.body)
			}
			if tt.wantCode != http.StatusOK {
				return
			}
			var got []string
			for _, it := range r.json(t)["items"].([]any) {
				got = append(got, str(meta(it.(map[string]any))["name"]))
			}
			if !slices.Equal(got, tt.wantNames) {
				t.Errorf("got %v, want %v", got, tt.wantNames)
			}
		})
	}
}

// TestCRDDuplicateFields: a body naming a field twice is refused under
// Strict and warned about otherwise, for custom objects as for built-ins.
func TestCRDDuplicateFields(t *testing.T) {
	c := newThings(t)
	body := `{"apiVersion":"example.com/v1","kind":"Thing","metadata":{"name":"%s"},"spec":{"name":"a","name":"b"}}`
	tests := []struct {
		query    string
		wantCode int
		wantWarn bool
	}{
		{"?fieldValidation=Strict", http.StatusBadRequest, false},
		{"?fieldValidation=Warn", http.StatusCreated, true},
		{"?fieldValidation=Ignore", http.StatusCreated, false},
	}
	for i, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			r := c.do("POST", things+tt.query, fmt.Sprintf(body, fmt.Sprint("dup", i)))
			if r.code != tt.wantCode {
				t.Fatalf("got %d, want %d: %s", r.code, tt.wantCode, r.body)
			}
			const want = `duplicate field "spec.name"`
			if tt.wantCode == http.StatusBadRequest && !strings.Contains(str(r.json(t)["message"]), want) {
				t.Errorf("got %s, want a message naming %s", r.body, want)
			}
			got := warnings(r)
			if tt.wantWarn != slices.ContainsFunc(got, func(w string) bool { return strings.Contains(w, want) }) {
				t.Errorf("got warnings %q, want one naming %s: %v", got, want, tt.wantWarn)
			}
		})
	}
}
