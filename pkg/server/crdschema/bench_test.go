package crdschema

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// typicalSchema has 30 properties of the usual kinds.
func typicalSchema() string {
	var b strings.Builder
	b.WriteString("type: object\nproperties:\n  spec:\n    type: object\n    required: [p0]\n    properties:\n")
	for i := 0; i < 30; i++ {
		switch i % 5 {
		case 0:
			fmt.Fprintf(&b, "      p%d: {type: string, description: field %d, maxLength: 63, pattern: '^[a-z0-9-]*$'}\n", i, i)
		case 1:
			fmt.Fprintf(&b, "      p%d: {type: integer, format: int32, minimum: 0, maximum: 1000, default: 1}\n", i)
		case 2:
			fmt.Fprintf(&b, "      p%d: {type: string, enum: [a, b, c], default: a}\n", i)
		case 3:
			fmt.Fprintf(&b, "      p%d: {type: object, additionalProperties: {type: string}}\n", i)
		case 4:
			fmt.Fprintf(&b, "      p%d:\n        type: array\n        x-kubernetes-list-type: map\n        x-kubernetes-list-map-keys: [name]\n        items:\n          type: object\n          required: [name]\n          properties:\n            name: {type: string}\n            value: {type: integer}\n", i)
		}
	}
	b.WriteString("  status:\n    type: object\n    x-kubernetes-preserve-unknown-fields: true\n")
	return b.String()
}

func typicalObject() string {
	var parts []string
	for i := 0; i < 30; i++ {
		switch i % 5 {
		case 0:
			parts = append(parts, fmt.Sprintf(`"p%d": "value-%d"`, i, i))
		case 1:
			parts = append(parts, fmt.Sprintf(`"p%d": %d`, i, i))
		case 2:
			parts = append(parts, fmt.Sprintf(`"p%d": "b"`, i))
		case 3:
			parts = append(parts, fmt.Sprintf(`"p%d": {"a": "x", "b": "y"}`, i))
		case 4:
			parts = append(parts, fmt.Sprintf(`"p%d": [{"name": "a", "value": 1}, {"name": "b", "value": 2}]`, i))
		}
	}
	return `{"apiVersion": "x.io/v1", "kind": "Thing", "metadata": {"name": "t", "namespace": "default"}, "spec": {` + strings.Join(parts, ", ") + `}, "status": {"ready": true}}`
}

func TestTypicalObjectIsValid(t *testing.T) {
	s := mustNew(t, typicalSchema())
	obj := parseObject(t, typicalObject())
	if removed := s.Prune(obj); len(removed) > 0 {
		t.Errorf("pruned %v", removed)
	}
	s.Default(obj)
	if errs := s.Validate(obj); len(errs) > 0 {
		t.Errorf("errors: %v", errs)
	}
}

// TestMemoryPerSchema keeps compiled schemas small: a server may hold
// hundreds of CRDs.
func TestMemoryPerSchema(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap")
	}
	props := parseSchema(t, typicalSchema())
	const n = 200
	keep := make([]*Structural, n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range keep {
		s, errs := New(props, schemaPath)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		keep[i] = s
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / n
	t.Logf("about %d bytes per compiled 30-property schema", per)
	if per > 50<<10 {
		t.Errorf("compiled schema takes %d bytes, want well under 50 KiB", per)
	}
	runtime.KeepAlive(keep)
}

// TestDeepObjects makes sure deeply nested data neither overflows the
// stack nor takes long: recursion follows the schema, or the data only
// where kube's decoder already bounds the depth.
func TestDeepObjects(t *testing.T) {
	s := mustNew(t, `{type: object, properties: {a: {type: object, additionalProperties: true}, p: {type: object, x-kubernetes-preserve-unknown-fields: true}, e: {type: array, items: {x-kubernetes-preserve-unknown-fields: true}, x-kubernetes-list-type: set}}}`)
	const depth = 9000 // kube's decoder stops at 10000 levels
	deep := strings.Repeat("[", depth) + strings.Repeat("]", depth)
	deepObj := strings.Repeat(`{"x":`, depth) + "1" + strings.Repeat("}", depth)
	obj := parseObject(t, fmt.Sprintf(`{"a": {"k": %s, "o": %s}, "p": %s, "e": [%s, %s]}`, deep, deepObj, deepObj, deepObj, deepObj))
	s.Prune(obj)
	s.Default(obj)
	errs := s.Validate(obj)
	if len(errs) != 1 || errs[0].Field != "e[1]" {
		t.Errorf("errors: %v", errs)
	}
}

func BenchmarkValidate(b *testing.B) {
	s := mustNew(b, typicalSchema())
	obj := parseObject(b, typicalObject())
	b.ReportAllocs()
	for b.Loop() {
		if errs := s.Validate(obj); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}

func BenchmarkPrune(b *testing.B) {
	s := mustNew(b, typicalSchema())
	obj := parseObject(b, typicalObject())
	b.ReportAllocs()
	for b.Loop() {
		if removed := s.Prune(obj); len(removed) > 0 {
			b.Fatal(removed)
		}
	}
}

func BenchmarkDefault(b *testing.B) {
	s := mustNew(b, typicalSchema())
	obj := parseObject(b, typicalObject())
	b.ReportAllocs()
	for b.Loop() {
		s.Default(obj)
	}
}

func BenchmarkNew(b *testing.B) {
	props := parseSchema(b, typicalSchema())
	b.ReportAllocs()
	for b.Loop() {
		if _, errs := New(props, schemaPath); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}
