package generic

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestWithResourceVersion checks that splicing the revision into stored
// JSON gives byte for byte what encoding the object at that revision
// gives, for objects whose metadata sorts resourceVersion first, last,
// between, alone, and for awkward values around it.
func TestWithResourceVersion(t *testing.T) {
	tests := []struct {
		name string
		obj  map[string]any
	}{
		{name: "typical", obj: map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{
			"name": "p", "namespace": "default", "uid": "u-1", "labels": map[string]any{"a": "b"},
			"creationTimestamp": "2026-11-27T00:00:00Z"}, "spec": map[string]any{"containers": []any{map[string]any{"name": "c"}}}}},
		{name: "metadata empty", obj: map[string]any{"kind": "X", "metadata": map[string]any{}}},
		{name: "resourceVersion last", obj: map[string]any{"metadata": map[string]any{"name": "a", "namespace": "b"}}},
		{name: "resourceVersion first", obj: map[string]any{"metadata": map[string]any{"uid": "x", "selfLink": "y"}}},
		{name: "keys before metadata with nested metadata", obj: map[string]any{
			"data": map[string]any{"metadata": `{"resourceVersion":"9"}`, "k": "}{][\"\\"}, "kind": "ConfigMap",
			"metadata": map[string]any{"annotations": map[string]any{"x": "\"resourceVersion\":\"1\""}, "name": "cm"}}},
		{name: "custom top-level object named like metadata's neighbours", obj: map[string]any{
			"aaa": map[string]any{"metadata": map[string]any{"resourceVersion": "5"}}, "metadata": map[string]any{"name": "w"},
			"spec": []any{1.5, true, nil, "x"}}},
		{name: "html-escaped strings", obj: map[string]any{"metadata": map[string]any{"name": "<&>", "namespace": "\u2028"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := &unstructured.Unstructured{Object: tt.obj}
			stored, err := storedBytes(u)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := withResourceVersion(stored, 1234)
			if !ok {
				t.Fatalf("withResourceVersion(%s) not ok", stored)
			}
			want, err := servedBytes(u, 1234)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("withResourceVersion = %s\nwant %s", got, want)
			}
		})
	}
	for _, bad := range []string{``, `[]`, `{"kind":"X"}`, `{"metadata":"x"}`, `{"metadata":{"resourceVersion":"1"}}`, `{"metadata":{"a":`} {
		if _, ok := withResourceVersion([]byte(bad), 1); ok {
			t.Errorf("withResourceVersion(%s) ok, want refused", bad)
		}
	}
}

// TestWithResourceVersionRandom compares splicing with encoding over
// random metadata key sets.
func TestWithResourceVersionRandom(t *testing.T) {
	keys := []string{"annotations", "creationTimestamp", "deletionTimestamp", "finalizers", "generateName", "generation",
		"labels", "managedFields", "name", "namespace", "ownerReferences", "selfLink", "uid", "zz"}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		meta := map[string]any{}
		for _, k := range keys {
			if r.IntN(2) == 0 {
				meta[k] = fmt.Sprintf("v%d,}\"", r.IntN(100))
			}
		}
		obj := map[string]any{"metadata": meta}
		if r.IntN(2) == 0 {
			obj["data"] = map[string]any{"metadata": map[string]any{"x": []any{"]", map[string]any{}}}}
		}
		u := &unstructured.Unstructured{Object: obj}
		stored, _ := storedBytes(u)
		rev := r.Int64N(1 << 40)
		got, ok := withResourceVersion(stored, rev)
		want, _ := servedBytes(u, rev)
		if !ok || string(got) != string(want) {
			t.Fatalf("case %d: withResourceVersion(%s) = %s, %v; want %s", i, stored, got, ok, want)
		}
	}
}

// FuzzWithResourceVersion: no input makes it panic, and what it accepts
// as JSON comes out as JSON one member longer.
func FuzzWithResourceVersion(f *testing.F) {
	for _, s := range []string{`{"metadata":{}}`, `{"a":[1,{"b":"}"}],"metadata":{"name":"x","uid":"y"}}`, `{"metadata":{"z":1}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		out, ok := withResourceVersion(b, 77)
		if !ok || !json.Valid(b) {
			return
		}
		// The member, and a comma unless metadata was empty.
		if grew := len(out) - len(b); !json.Valid(out) || (grew != len(`"resourceVersion":"77"`) && grew != len(`,"resourceVersion":"77"`)) {
			t.Fatalf("withResourceVersion(%s) = %s", b, out)
		}
	})
}
