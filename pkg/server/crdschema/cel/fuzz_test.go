package cel

import (
	"context"
	"strings"
	"testing"
)

// fuzzSchema exercises every kind of node: root, object, list items, map
// values, map lists with transition rules, int-or-string, formats and
// messageExpressions.
const fuzzSchema = `{"type":"object",
"x-kubernetes-validations":[{"rule":"!has(self.spec) || self.metadata.name != 'forbidden'"}],
"properties":{"spec":{"type":"object",
 "x-kubernetes-validations":[
  {"rule":"!has(self.replicas) || !has(self.max) || self.replicas <= self.max","messageExpression":"'replicas above ' + self.name"},
  {"rule":"!has(self.tags) || self.tags.all(t, t.size() < 8)","reason":"FieldValueForbidden"},
  {"rule":"!has(self.port) || (type(self.port) == int ? self.port > 0 : self.port.matches('^[a-z]+$'))","fieldPath":".port"},
  {"rule":"!has(self.name) || !has(oldSelf.name) || self.name == oldSelf.name","message":"name is immutable"},
  {"rule":"!has(self.nums) || self.nums.size() == 0 || self.nums.max() - self.nums.min() < 100"},
  {"rule":"!has(self.name) || self.name.findAll('[0-9]').size() < 3"}],
 "properties":{
  "replicas":{"type":"integer"},"max":{"type":"integer"},
  "name":{"type":"string","maxLength":16},
  "ratio":{"type":"number","x-kubernetes-validations":[{"rule":"self >= 0.0 && self <= 1.0"}]},
  "port":{"x-kubernetes-int-or-string":true},
  "at":{"type":"string","format":"date-time","x-kubernetes-validations":[{"rule":"self > timestamp('2000-01-01T00:00:00Z')"}]},
  "tags":{"type":"array","maxItems":16,"x-kubernetes-list-type":"set","items":{"type":"string","maxLength":16,"x-kubernetes-validations":[{"rule":"self != ''"}]}},
  "nums":{"type":"array","maxItems":64,"items":{"type":"integer"}},
  "labels":{"type":"object","maxProperties":16,"additionalProperties":{"type":"string","maxLength":32,"x-kubernetes-validations":[{"rule":"self.size() > 0"},{"rule":"self == oldSelf","message":"labels are immutable"}]}},
  "ports":{"type":"array","maxItems":16,"x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
   "items":{"type":"object","required":["name"],"properties":{"name":{"type":"string","maxLength":16},"n":{"type":"integer"}},
    "x-kubernetes-validations":[{"rule":"!has(self.n) || !has(oldSelf.n) || self.n >= oldSelf.n"},{"rule":"oldSelf.hasValue() || !has(self.n) || self.n < 1000","optionalOldSelf":true}]}}}}}}`

func FuzzValidate(f *testing.F) {
	v, errs := Compile(schema(f, fuzzSchema), rootPath)
	if len(errs) > 0 {
		f.Fatalf("compile: %v", errs)
	}
	seeds := [][2]string{
		{`{"metadata":{"name":"a"},"spec":{"replicas":1,"max":2,"name":"x1"}}`, ``},
		{`{"metadata":{"name":"forbidden"},"spec":{"replicas":3,"max":2,"name":"abc123","port":"HTTP","ratio":2}}`, `{"spec":{"name":"b"}}`},
		{`{"spec":{"tags":["a","toolongtag",""],"nums":[1,500],"labels":{"a":"","b":"x"},"at":"1999-01-01T00:00:00Z"}}`, `{"spec":{"labels":{"b":"y"}}}`},
		{`{"spec":{"ports":[{"name":"a","n":1},{"name":"b","n":2000}]}}`, `{"spec":{"ports":[{"name":"a","n":5}]}}`},
		{`{"spec":{"port":0,"ratio":0.5,"at":"not a date","nums":"x","ports":[1,{"n":1}]}}`, `{"spec":[]}`},
		{`{"spec":null}`, `{"spec":{"name":null}}`},
	}
	for _, s := range seeds {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, objJSON, oldJSON []byte) {
		if len(objJSON)+len(oldJSON) > 1<<16 {
			return
		}
		obj, ok := decodeObject(objJSON)
		if !ok {
			return
		}
		old, _ := decodeObject(oldJSON)

		w := walker{ctx: context.Background(), budget: RuntimeCELCostBudget}
		var oldObj any
		if old != nil {
			oldObj = old
		}
		w.node(v.root, obj, oldObj)
		if w.budget < 0 {
			// running out of budget must be reported
			reported := false
			for _, e := range w.errs {
				reported = reported || strings.Contains(e.Detail, "budget") || strings.Contains(e.Detail, "cost")
			}
			if !reported {
				t.Fatalf("budget exhausted silently: %v", w.errs)
			}
		}
		// deterministic: the same input gives the same errors
		again := v.Validate(context.Background(), obj, old)
		if a, b := strings.Join(errStrings(w.errs), "\n"), strings.Join(errStrings(again), "\n"); a != b {
			t.Fatalf("errors differ between runs:\n%s\n---\n%s", a, b)
		}
		for _, e := range again {
			if e.Detail == "" && e.Type.String() != "Duplicate value" {
				t.Fatalf("error without detail: %v", e)
			}
		}
	})
}

func decodeObject(b []byte) (map[string]any, bool) {
	v, err := decodeJSON(b)
	if err != nil {
		return nil, false
	}
	m, ok := v.(map[string]any)
	return m, ok
}
