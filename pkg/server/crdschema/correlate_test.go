package crdschema

import (
	"fmt"
	"testing"
)

// TestMapListMatcher: short lists (searched) and long lists (indexed)
// match the same old items, as kube's MapList does.
func TestMapListMatcher(t *testing.T) {
	old := []any{
		map[string]any{"a": "x", "b": int64(1), "v": "first"},
		map[string]any{"a": "x", "b": int64(1), "v": "second"},
		map[string]any{"a": "y", "b": 1.5, "v": "float"},
		"junk",
		map[string]any{"a": "z", "v": "partial"},
		map[string]any{"a": "w", "b": []any{}, "v": "list key"},
	}
	tests := []struct {
		keys []string
		item any
		want any // v of the old item, nil for none
	}{
		{[]string{"a", "b"}, map[string]any{"a": "x", "b": int64(1)}, "first"},
		{[]string{"a", "b"}, map[string]any{"a": "y", "b": 1.5}, "float"},
		{[]string{"a", "b"}, map[string]any{"a": "x", "b": 1.0}, nil},
		{[]string{"a", "b"}, map[string]any{"a": "z"}, nil},
		{[]string{"a", "b"}, map[string]any{"a": "w", "b": []any{}}, nil},
		{[]string{"a", "b"}, "junk", nil},
		{[]string{"b"}, map[string]any{"b": int64(1)}, "first"},
		{[]string{"b"}, map[string]any{"b": 1.0}, nil},
		{[]string{"b"}, map[string]any{"b": 1.5}, "float"},
		{[]string{"a"}, map[string]any{"a": "z", "b": int64(9)}, "partial"},
	}
	for _, long := range []bool{false, true} {
		list := old
		if long {
			list = append([]any{}, old...)
			for i := 0; len(list) <= smallList; i++ {
				list = append(list, map[string]any{"a": fmt.Sprint("pad", i), "b": int64(-1)})
			}
		}
		for _, tt := range tests {
			m := NewMapListMatcher(tt.keys, list)
			got := m.Match(tt.item)
			var gotV any
			if got != nil {
				gotV = got.(map[string]any)["v"]
			}
			if gotV != tt.want {
				t.Errorf("long=%v keys %v: Match(%v) = %v, want %v", long, tt.keys, tt.item, gotV, tt.want)
			}
		}
	}
}

func TestCorrelatedField(t *testing.T) {
	old := Correlated{Old: map[string]any{"apiVersion": "v1", "spec": nil}, Matched: true}
	tests := []struct {
		name string
		c    Correlated
		key  string
		root bool
		want Correlated
	}{
		{"present", old, "spec", false, Correlated{Matched: true}},
		{"absent", old, "status", false, Correlated{}},
		{"apiVersion at the root", old, "apiVersion", true, Correlated{}},
		{"apiVersion below", old, "apiVersion", false, Correlated{Old: "v1", Matched: true}},
		{"parent unmatched", Correlated{Old: map[string]any{"spec": int64(1)}}, "spec", false, Correlated{}},
		{"parent not an object", Correlated{Old: []any{}, Matched: true}, "spec", false, Correlated{}},
	}
	for _, tt := range tests {
		if got := tt.c.Field(tt.key, tt.root); got != tt.want {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
	}
}
