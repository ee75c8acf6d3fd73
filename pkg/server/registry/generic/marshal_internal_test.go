package generic

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	sigsjson "sigs.k8s.io/json"
)

// TestMarshalObject: the encoding is encoding/json's, byte for byte.
func TestMarshalObject(t *testing.T) {
	tests := []struct {
		name string
		obj  map[string]any
	}{
		{"empty", map[string]any{}},
		{"scalars", map[string]any{"s": "x", "b": true, "n": nil, "i": int64(-42), "int": 7, "i32": int32(3), "f": 1.5}},
		{"keys sorted, escaped", map[string]any{"b": 1, "a": 2, "<&>": 3, "é": 4, "": 5}},
		{"strings", map[string]any{
			"html": "<a href=\"x\">&amp;</a>", "controls": "\x00\x01\b\f\n\r\t\x1f\x7f", "backslash": `a\b`,
			"invalid utf8": "a\xffb\xc3", "separators": "x\u2028y\u2029z", "unicode": "日本語 🙂",
		}},
		{"floats", map[string]any{"tiny": 1e-7, "edge": 1e-6, "big": 1e21, "below": 1e20, "neg": -2.5e-9, "zero": 0.0, "negzero": math.Copysign(0, -1), "min": 5e-324, "max": math.MaxFloat64}},
		{"nested", map[string]any{"m": map[string]any{"l": []any{1, "x", map[string]any{"z": nil}, []any{}}}, "nilmap": map[string]any(nil), "nilslice": []any(nil)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := json.Marshal(tt.obj)
			if err != nil {
				t.Fatal(err)
			}
			got, err := marshalObject(tt.obj)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("got  %s (%v)\nwant %s", got, err, want)
			}
		})
	}
	t.Run("other types go through encoding/json", func(t *testing.T) {
		obj := map[string]any{"l": []string{"a"}, "m": map[string]string{"k": "v"}, "n": json.Number("1.0")}
		want, _ := json.Marshal(obj)
		if got, err := marshalObject(obj); err != nil || !bytes.Equal(got, want) {
			t.Errorf("got %s (%v), want %s", got, err, want)
		}
	})
	t.Run("NaN is encoding/json's error", func(t *testing.T) {
		if _, err := marshalObject(map[string]any{"f": math.NaN()}); err == nil {
			t.Error("no error for NaN")
		}
	})
}

// FuzzMarshalObject: any object JSON decodes to encodes as encoding/json
// encodes it.
func FuzzMarshalObject(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","labels":{"a":"<b>"}},"data":{"k":"\u2028\ud800"}}`))
	f.Add([]byte(`{"a":[1,2.5,-0,1e300,1e-7,true,null,{"b":"\u0000"}]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		var obj map[string]any
		if err := sigsjson.UnmarshalCaseSensitivePreserveInts(in, &obj); err != nil || obj == nil {
			return
		}
		want, werr := json.Marshal(obj)
		got, gerr := marshalObject(obj)
		if (werr != nil) != (gerr != nil) || !bytes.Equal(got, want) {
			t.Fatalf("%q:\n got  %s (%v)\nwant %s (%v)", in, got, gerr, want, werr)
		}
	})
}
