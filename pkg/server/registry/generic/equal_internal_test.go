package generic

import (
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/server/crdschema"
)

func TestJSONEqual(t *testing.T) {
	tests := []struct {
		a, b any
		want bool
	}{
		{map[string]any{"a": []any{int64(1), "x", true, nil}}, map[string]any{"a": []any{int64(1), "x", true, nil}}, true},
		{map[string]any{"a": int64(1)}, map[string]any{"a": int64(2)}, false},
		{map[string]any{"a": int64(1)}, map[string]any{"b": int64(1)}, false},
		{map[string]any{"a": nil}, map[string]any{}, false},
		{[]any{"a"}, []any{"a", "b"}, false},
		{1.5, 1.5, true},
		{"1", int64(1), false},
		{map[string]any{}, []any{}, false},
	}
	for _, tt := range tests {
		if got := crdschema.EqualJSON(tt.a, tt.b); got != tt.want {
			t.Errorf("jsonEqual(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
