package crdschema

import (
	"encoding/json"
	"testing"
)

func TestEqualJSON(t *testing.T) {
	tests := []struct {
		name string
		a, b any
		want bool
	}{
		{"int and integral float", int64(1), float64(1), true},
		{"float and int", float64(1), int64(1), true},
		{"int and fraction", int64(1), 1.5, false},
		{"big int and the float it rounds to", int64(1<<53 + 1), float64(1 << 53), false},
		{"big int and its float", int64(1 << 60), float64(1 << 60), true},
		{"float beyond int64", int64(1<<63 - 1), float64(1 << 63), false},
		{"json.Number int", json.Number("7"), int64(7), true},
		{"json.Number float", json.Number("7.5"), 7.5, true},
		{"json.Number and number", json.Number("7"), 7.0, true},
		{"other Go ints", int32(3), uint8(3), true},
		{"string and number", "1", int64(1), false},
		{"null and null", nil, nil, true},
		{"null and false", nil, false, false},
		{"objects", map[string]any{"a": int64(1), "b": []any{"x"}}, map[string]any{"b": []any{"x"}, "a": 1.0}, true},
		{"object missing key", map[string]any{"a": nil}, map[string]any{"b": nil}, false},
		{"object and list", map[string]any{}, []any{}, false},
		{"lists in order", []any{int64(1), "a"}, []any{"a", int64(1)}, false},
		{"empty lists", []any{}, []any{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EqualJSON(tt.a, tt.b); got != tt.want {
				t.Errorf("EqualJSON(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
			if got := EqualJSON(tt.b, tt.a); got != tt.want {
				t.Errorf("EqualJSON(%v, %v) = %v, want %v", tt.b, tt.a, got, tt.want)
			}
		})
	}
}
