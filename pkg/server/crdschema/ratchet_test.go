package crdschema

import (
	"fmt"
	"strings"
	"testing"

	sigsjson "sigs.k8s.io/json"
)

// ratchetSchema has one field for each kind of ratcheting behaviour.
const ratchetSchema = `
type: object
required: [spec]
properties:
  metadata: {type: object}
  spec:
    type: object
    properties:
      name: {type: string, maxLength: 3}
      replicas: {type: integer, maximum: 5}
      mode: {type: string, enum: [a, b]}
      other: {type: string}
      tags: {type: array, maxItems: 2, items: {type: string, pattern: '^[a-z]+$'}}
      set: {type: array, x-kubernetes-list-type: set, items: {type: string, maxLength: 2}}
      atomic: {type: array, x-kubernetes-list-type: atomic, items: {type: string, maxLength: 2}}
      modes: {type: array, items: {type: string, enum: [a, b]}}
      amodes: {type: array, x-kubernetes-list-type: atomic, items: {type: string, enum: [a, b]}}
      rows: {type: array, items: {type: object, properties: {a: {type: string, maxLength: 1}, b: {type: string}}}}
      ports:
        type: array
        x-kubernetes-list-type: map
        x-kubernetes-list-map-keys: [name]
        items:
          type: object
          required: [name]
          properties:
            name: {type: string}
            port: {type: integer, maximum: 100}
            proto: {type: string}
      labels: {type: object, maxProperties: 2, additionalProperties: {type: string, maxLength: 3}}
      sub: {type: object, required: [x], properties: {x: {type: string}, z: {type: string}}}
      any:
        type: object
        properties: {a: {type: string}, b: {type: string}, c: {type: string}}
        anyOf: [{required: [a]}, {required: [b]}]
      all:
        type: object
        properties: {v: {type: string}, w: {type: string}}
        allOf: [{properties: {v: {maxLength: 1}}}]
      dups: {type: array, x-kubernetes-list-type: set, items: {type: string}}
      res: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}
      free: {type: object, x-kubernetes-preserve-unknown-fields: true, maxProperties: 1}
`

func TestValidateUpdate(t *testing.T) {
	s := mustNew(t, ratchetSchema)
	tooLong := func(f string) string { return f + `: Too long: may not be more than 3 bytes` }
	tooLong1 := func(f string) string { return f + `: Too long: may not be more than 1 byte` }
	tests := []struct {
		name     string
		obj, old string // specs only; old "" is a create
		want     []string
	}{
		{
			name: "create is never ratcheted",
			obj:  `{"replicas": 9}`,
			want: []string{`spec.replicas: Invalid value: 9: spec.replicas in body should be less than or equal to 5`},
		},
		{
			name: "unchanged invalid value passes",
			obj:  `{"replicas": 9, "other": "changed"}`,
			old:  `{"replicas": 9, "other": "before"}`,
		},
		{
			name: "changed invalid value fails",
			obj:  `{"replicas": 10}`,
			old:  `{"replicas": 9}`,
			want: []string{`spec.replicas: Invalid value: 10: spec.replicas in body should be less than or equal to 5`},
		},
		{
			name: "valid value made invalid fails",
			obj:  `{"replicas": 9}`,
			old:  `{"replicas": 1}`,
			want: []string{`spec.replicas: Invalid value: 9: spec.replicas in body should be less than or equal to 5`},
		},
		{
			name: "newly added invalid value fails",
			obj:  `{"replicas": 9}`,
			old:  `{}`,
			want: []string{`spec.replicas: Invalid value: 9: spec.replicas in body should be less than or equal to 5`},
		},
		{
			name: "integers and integral floats are the same value",
			obj:  `{"replicas": 9.0, "mode": "x", "other": "changed"}`,
			old:  `{"replicas": 9, "mode": "x"}`,
		},
		{
			name: "several keywords ratchet per field",
			obj:  `{"name": "long", "mode": "x", "labels": {"a": "long"}, "other": "changed"}`,
			old:  `{"name": "long", "mode": "x", "labels": {"a": "long"}}`,
		},
		{
			name: "only the changed field fails",
			obj:  `{"name": "longer", "mode": "x"}`,
			old:  `{"name": "long", "mode": "x"}`,
			want: []string{tooLong("spec.name")},
		},
		{
			name: "list-map item matched by key passes when unchanged, in any order",
			obj:  `{"ports": [{"name": "b", "port": 1}, {"name": "a", "port": 200}]}`,
			old:  `{"ports": [{"name": "a", "port": 200}]}`,
		},
		{
			name: "invalid field of a matched list-map item passes while its siblings change",
			obj:  `{"ports": [{"name": "a", "port": 200, "proto": "UDP"}]}`,
			old:  `{"ports": [{"name": "a", "port": 200, "proto": "TCP"}]}`,
		},
		{
			name: "newly added invalid list-map item fails",
			obj:  `{"ports": [{"name": "a", "port": 200}, {"name": "b", "port": 300}]}`,
			old:  `{"ports": [{"name": "a", "port": 200}]}`,
			want: []string{`spec.ports[1].port: Invalid value: 300: spec.ports[1].port in body should be less than or equal to 100`},
		},
		{
			name: "list-map item whose key changed is new",
			obj:  `{"ports": [{"name": "c", "port": 200}]}`,
			old:  `{"ports": [{"name": "a", "port": 200}]}`,
			want: []string{`spec.ports[0].port: Invalid value: 200: spec.ports[0].port in body should be less than or equal to 100`},
		},
		{
			// kube's CorrelatedObject treats an unset list type as atomic
			name: "items of a list without list type do not match by index",
			obj:  `{"tags": ["BAD", "ok"]}`,
			old:  `{"tags": ["BAD"]}`,
			want: []string{`spec.tags[0]: Invalid value: "BAD": spec.tags[0] in body should match '^[a-z]+$'`},
		},
		{
			name: "an unchanged enum item of a changed list without list type fails",
			obj:  `{"modes": ["x", "a"]}`,
			old:  `{"modes": ["x"]}`,
			want: []string{`spec.modes[0]: Unsupported value: "x": supported values: "a", "b"`},
		},
		{
			name: "an unchanged enum item of a changed atomic list fails",
			obj:  `{"amodes": ["x", "a"]}`,
			old:  `{"amodes": ["x"]}`,
			want: []string{`spec.amodes[0]: Unsupported value: "x": supported values: "a", "b"`},
		},
		{
			name: "enum items of unchanged lists pass",
			obj:  `{"modes": ["x", "a"], "amodes": ["y"], "other": "changed"}`,
			old:  `{"modes": ["x", "a"], "amodes": ["y"]}`,
		},
		{
			name: "an unchanged field of a changed item of a list without list type fails",
			obj:  `{"rows": [{"a": "xx", "b": "new"}]}`,
			old:  `{"rows": [{"a": "xx"}]}`,
			want: []string{tooLong1("spec.rows[0].a")},
		},
		{
			name: "fields of items of an unchanged list pass",
			obj:  `{"rows": [{"a": "xx", "b": "same"}], "other": "changed"}`,
			old:  `{"rows": [{"a": "xx", "b": "same"}]}`,
		},
		{
			name: "an invalid item moved to another index is new",
			obj:  `{"tags": ["ok", "BAD"]}`,
			old:  `{"tags": ["BAD"]}`,
			want: []string{`spec.tags[1]: Invalid value: "BAD": spec.tags[1] in body should match '^[a-z]+$'`},
		},
		{
			name: "maxItems belongs to the list: unchanged list passes",
			obj:  `{"tags": ["a", "b", "c"], "other": "changed"}`,
			old:  `{"tags": ["a", "b", "c"]}`,
		},
		{
			name: "maxItems belongs to the list: changing an item fails",
			obj:  `{"tags": ["a", "b", "d"]}`,
			old:  `{"tags": ["a", "b", "c"]}`,
			want: []string{`spec.tags: Too many: 3: must have at most 2 items`},
		},
		{
			name: "unchanged set passes",
			obj:  `{"set": ["abc"], "atomic": ["abc"], "other": "changed"}`,
			old:  `{"set": ["abc"], "atomic": ["abc"]}`,
		},
		{
			name: "set and atomic items do not match one by one",
			obj:  `{"set": ["abc", "d"], "atomic": ["abc", "d"]}`,
			old:  `{"set": ["abc"], "atomic": ["abc"]}`,
			want: []string{
				`spec.atomic[0]: Too long: may not be more than 2 bytes`,
				`spec.set[0]: Too long: may not be more than 2 bytes`,
			},
		},
		{
			name: "map entries match by key",
			obj:  `{"labels": {"a": "long", "b": "ok"}}`,
			old:  `{"labels": {"a": "long"}}`,
		},
		{
			name: "changed map entry fails",
			obj:  `{"labels": {"a": "longer"}}`,
			old:  `{"labels": {"a": "long"}}`,
			want: []string{tooLong("spec.labels.a")},
		},
		{
			name: "required ratchets with its object",
			obj:  `{"sub": {"z": "1"}, "other": "changed"}`,
			old:  `{"sub": {"z": "1"}}`,
		},
		{
			name: "required fails once its object changes",
			obj:  `{"sub": {"z": "2"}}`,
			old:  `{"sub": {"z": "1"}}`,
			want: []string{`spec.sub.x: Required value`},
		},
		{
			name: "anyOf ratchets with its node",
			obj:  `{"any": {"c": "1"}, "other": "changed"}`,
			old:  `{"any": {"c": "1"}}`,
		},
		{
			name: "anyOf fails once its node changes",
			obj:  `{"any": {"c": "2"}}`,
			old:  `{"any": {"c": "1"}}`,
			want: []string{`spec.any: Invalid value: "": "spec.any" must validate at least one schema (anyOf)`, `spec.any.a: Required value`},
		},
		{
			name: "fields under allOf do not ratchet on their own",
			obj:  `{"all": {"v": "xx", "w": "new"}}`,
			old:  `{"all": {"v": "xx"}}`,
			want: []string{`spec.all: Invalid value: "": "spec.all" must validate all the schemas (allOf). None validated`, "spec.all.v: Too long: may not be more than 1 byte"},
		},
		{
			name: "allOf ratchets with its node",
			obj:  `{"all": {"v": "xx"}, "other": "changed"}`,
			old:  `{"all": {"v": "xx"}}`,
		},
		{
			name: "list-type errors are reported when the old object had none",
			obj:  `{"dups": ["a", "a"]}`,
			old:  `{"dups": ["a"]}`,
			want: []string{`spec.dups[1]: Duplicate value: "a"`},
		},
		{
			name: "list-type errors are not reported when the old object had some",
			obj:  `{"dups": ["a", "a", "b", "b"]}`,
			old:  `{"dups": ["a", "a"]}`,
		},
		{
			name: "old list-type errors excuse new ones anywhere, as in kube",
			obj:  `{"dups": ["a", "a"], "ports": [{"name": "x"}, {"name": "x"}]}`,
			old:  `{"dups": ["a", "a"]}`,
		},
		{
			name: "embedded resource checks never ratchet",
			obj:  `{"res": {"apiVersion": "v1"}, "other": "changed"}`,
			old:  `{"res": {"apiVersion": "v1"}}`,
			want: []string{`spec.res.kind: Required value`},
		},
		{
			name: "objects with unknown fields always count as changed, as in kube",
			obj:  `{"free": {"x": 1, "y": 2}}`,
			old:  `{"free": {"x": 1, "y": 2}}`,
			want: []string{`spec.free: Too many: 2: must have at most 1 item`},
		},
		{
			name: "a changed type is a change",
			obj:  `{"name": 1}`,
			old:  `{"name": "1"}`,
			want: []string{`spec.name: Invalid value: "integer": spec.name in body must be of type string: "integer"`},
		},
		{
			name: "null values compare",
			obj:  `{"name": null, "other": "changed"}`,
			old:  `{"name": null}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := parseObject(t, `{"apiVersion": "x.io/v1", "kind": "T", "metadata": {"name": "n", "uid": "1"}, "spec": `+tt.obj+`}`)
			var old map[string]any
			if tt.old != "" {
				old = parseObject(t, `{"apiVersion": "x.io/v1", "kind": "T", "metadata": {"name": "n", "uid": "1"}, "spec": `+tt.old+`}`)
			}
			got := s.ValidateUpdate(obj, old)
			diffStrings(t, "errors", errorStrings(got), tt.want)
			// whatever ratchets, Validate reports
			if tt.old != "" && len(tt.want) == 0 && len(s.Validate(obj)) == 0 {
				t.Errorf("test case is valid without ratcheting")
			}
		})
	}
}

// TestValidateUpdateRoot: errors that belong to the object root never
// ratchet, because its metadata has no schema and so never compares equal,
// as in kube; without metadata the root ratchets like any object.
func TestValidateUpdateRoot(t *testing.T) {
	s := mustNew(t, ratchetSchema)
	withMeta := parseObject(t, `{"metadata": {"name": "n"}}`)
	oldWithMeta := parseObject(t, `{"metadata": {"name": "n"}}`)
	diffStrings(t, "with metadata", errorStrings(s.ValidateUpdate(withMeta, oldWithMeta)), []string{`spec: Required value`})
	diffStrings(t, "without metadata", errorStrings(s.ValidateUpdate(map[string]any{}, map[string]any{})), nil)
	diffStrings(t, "nil object", errorStrings(s.ValidateUpdate(nil, map[string]any{})), nil)
	diffStrings(t, "nil object on create", errorStrings(s.ValidateUpdate(nil, nil)), []string{`spec: Required value`})
}

// TestValidateUpdateMatchesValidate: with nothing to ratchet against,
// ValidateUpdate reports exactly what Validate reports, in the same order.
func TestValidateUpdateMatchesValidate(t *testing.T) {
	s := mustNew(t, ratchetSchema)
	objs := []string{
		`{"spec": {"replicas": 9, "name": "long", "mode": "x", "tags": ["A", "B", "C"], "set": ["abc", "abc"]}}`,
		`{"spec": {"ports": [{"name": "a", "port": 200}, {"name": "a"}, {"port": 1}, "x"], "labels": {"a": "long", "b": "b", "c": "c"}}}`,
		`{"spec": {"sub": {}, "any": {}, "all": {"v": "xx"}, "dups": ["a", "a", "a"], "res": {"kind": "X", "metadata": {"name": "A_B"}}}}`,
		`{"metadata": {"name": "n"}}`,
	}
	for _, o := range objs {
		obj := parseObject(t, o)
		want := errorStrings(s.Validate(obj))
		if len(want) == 0 {
			t.Fatalf("%s is valid", o)
		}
		for _, old := range []string{`{}`, `{"metadata": {"name": "other"}, "spec": 1}`} {
			got := errorStrings(s.ValidateUpdate(obj, parseObject(t, old)))
			diffStrings(t, o+" against "+old, got, want)
		}
	}
}

// TestValidateUpdateUnchangedObject: an update that changes nothing keeps
// only the errors that never ratchet.
func TestValidateUpdateUnchangedObject(t *testing.T) {
	s := mustNew(t, ratchetSchema)
	o := `{"metadata": {"name": "n"}, "spec": {"replicas": 9, "name": "long", "tags": ["A", "B", "C"], "set": ["abc", "abc"], "ports": [{"name": "a", "port": 200}, {"name": "a"}],` +
		` "sub": {}, "any": {}, "all": {"v": "xx"}, "res": {"kind": "X"}}}`
	got := s.ValidateUpdate(parseObject(t, o), parseObject(t, o))
	diffStrings(t, "errors", errorStrings(got), []string{`spec.res.apiVersion: Required value`})
}

func TestValidateUpdateDoesNotModify(t *testing.T) {
	s := mustNew(t, ratchetSchema)
	o := `{"spec": {"replicas": 9, "ports": [{"name": "a", "port": 200}], "tags": ["A"]}}`
	obj, old := parseObject(t, o), parseObject(t, o)
	obj["spec"].(map[string]any)["other"] = "x"
	s.ValidateUpdate(obj, old)
	if want := parseObject(t, o); !EqualJSON(old, want) {
		t.Errorf("old changed: %v", old)
	}
}

// TestValidateUpdateLongMapList exercises the indexed matching of long
// list-map lists, with several keys of every scalar kind.
func TestValidateUpdateLongMapList(t *testing.T) {
	s := mustNew(t, `
type: object
properties:
  l:
    type: array
    x-kubernetes-list-type: map
    x-kubernetes-list-map-keys: [s, i, f, b]
    items:
      type: object
      required: [s, i, f, b]
      properties:
        s: {type: string}
        i: {type: integer}
        f: {type: number}
        b: {type: boolean}
        v: {type: integer, maximum: 0}`)
	var items []string
	for i := 0; i < 3*smallList; i++ {
		items = append(items, fmt.Sprintf(`{"s": "k%d", "i": %d, "f": %d.5, "b": %t, "v": %d}`, i, i, i, i%2 == 0, i))
	}
	old := parseObject(t, `{"l": [`+strings.Join(items, ",")+`]}`)
	// reversed, plus one new invalid item
	var rev []string
	for i := len(items) - 1; i >= 0; i-- {
		rev = append(rev, items[i])
	}
	rev = append(rev, `{"s": "new", "i": 0, "f": 0.5, "b": true, "v": 7}`)
	obj := parseObject(t, `{"l": [`+strings.Join(rev, ",")+`]}`)
	diffStrings(t, "errors", errorStrings(s.ValidateUpdate(obj, old)),
		[]string{fmt.Sprintf(`l[%d].v: Invalid value: 7: l[%d].v in body should be less than or equal to 0`, len(items), len(items))})
}

func TestListTypesValid(t *testing.T) {
	s := mustNew(t, ratchetSchema)
	for _, tt := range []struct {
		obj  string
		want bool
	}{
		{`{"spec": {"dups": ["a", "b"], "ports": [{"name": "a"}, {"name": "b"}]}}`, true},
		{`{"spec": {"dups": ["a", "a"]}}`, false},
		{`{"spec": {"ports": [{"name": "a"}, {"name": "a"}]}}`, false},
		{`{"spec": {"ports": [{"name": "a"}, {}]}}`, true}, // name is required by the item schema instead
		{`{"spec": {"ports": ["x"]}}`, false},
		{`{"spec": "x", "other": [1, 1]}`, true},
	} {
		if got := listTypesValid(s.root, parseObject(t, tt.obj)); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.obj, got, tt.want)
		}
	}
}

// TestValidateUpdateValidDoesNotAllocate: a valid update costs what
// Validate costs.
func TestValidateUpdateValidDoesNotAllocate(t *testing.T) {
	s := mustNew(t, typicalSchema())
	obj := parseObject(t, typicalObject())
	old := parseObject(t, typicalObject())
	if testing.AllocsPerRun(100, func() { s.Validate(obj) }) > 0 {
		t.Skip("Validate allocates here (the race detector makes sync.Pool drop items)")
	}
	if n := testing.AllocsPerRun(100, func() { s.ValidateUpdate(obj, old) }); n > 0 {
		t.Errorf("ValidateUpdate of a valid object allocates %v times", n)
	}
}

func TestValidateUpdateDeepObjects(t *testing.T) {
	s := mustNew(t, `{type: object, properties: {p: {type: object, x-kubernetes-preserve-unknown-fields: true}, e: {type: array, items: {x-kubernetes-preserve-unknown-fields: true}, x-kubernetes-list-type: set}}}`)
	const depth = 9000
	deepObj := strings.Repeat(`{"x":`, depth) + "1" + strings.Repeat("}", depth)
	o := fmt.Sprintf(`{"p": %s, "e": [%s, %s]}`, deepObj, deepObj, deepObj)
	if errs := s.ValidateUpdate(parseObject(t, o), parseObject(t, o)); len(errs) != 0 {
		t.Errorf("errors: %v", errs)
	}
	if errs := s.ValidateUpdate(parseObject(t, o), parseObject(t, `{}`)); len(errs) != 1 {
		t.Errorf("errors: %v", errs)
	}
}

func BenchmarkValidateUpdateRatcheted(b *testing.B) {
	s := mustNew(b, ratchetSchema)
	o := `{"metadata": {"name": "n"}, "spec": {"replicas": 9, "name": "long", "ports": [{"name": "a", "port": 200}, {"name": "b", "port": 1}], "tags": ["A", "b"]}}`
	obj, old := parseObject(b, o), parseObject(b, o)
	obj["spec"].(map[string]any)["other"] = "x"
	b.ReportAllocs()
	for b.Loop() {
		if errs := s.ValidateUpdate(obj, old); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}

// FuzzValidateUpdate checks ratcheting against Validate on arbitrary pairs
// of objects: it reports Validate's errors on create, a subset of them on
// update, and changes neither object.
func FuzzValidateUpdate(f *testing.F) {
	for _, o := range fuzzObjects {
		for _, old := range fuzzObjects {
			f.Add([]byte(o), []byte(old))
		}
	}
	s := mustNew(f, richSchema)
	f.Fuzz(func(t *testing.T, objData, oldData []byte) {
		var obj, old map[string]any
		if sigsjson.UnmarshalCaseSensitivePreserveInts(objData, &obj) != nil || obj == nil ||
			sigsjson.UnmarshalCaseSensitivePreserveInts(oldData, &old) != nil || old == nil {
			return
		}
		for _, o := range []map[string]any{obj, old} {
			s.Prune(o)
			s.Default(o)
		}
		objCopy, oldCopy := deepCopy(obj), deepCopy(old)
		all := errorStrings(s.Validate(obj))
		diffStrings(t, "create", errorStrings(s.ValidateUpdate(obj, nil)), all)
		left := map[string]int{}
		for _, e := range all {
			left[e]++
		}
		for _, e := range errorStrings(s.ValidateUpdate(obj, old)) {
			if left[e] == 0 {
				t.Fatalf("update reports %q, which Validate does not: %q", e, all)
			}
			left[e]--
		}
		if !EqualJSON(obj, objCopy) || !EqualJSON(old, oldCopy) {
			t.Fatalf("ValidateUpdate changed its arguments")
		}
	})
}
