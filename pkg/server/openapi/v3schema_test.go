package openapi

import (
	"encoding/json"
	"testing"

	"k8s.io/kube-openapi/pkg/validation/spec"
)

func TestWrapRefs(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"no ref", `{"type":"string","description":"d"}`, `{"description":"d","type":"string"}`},
		{"bare ref stays", `{"$ref":"#/definitions/A"}`, `{"$ref":"#/definitions/A"}`},
		{"ref with description", `{"$ref":"#/definitions/A","description":"d"}`,
			`{"description":"d","allOf":[{"$ref":"#/definitions/A"}]}`},
		{"property", `{"type":"object","properties":{"m":{"$ref":"#/definitions/A","description":"d"},"n":{"$ref":"#/definitions/B"}}}`,
			`{"type":"object","properties":{"m":{"description":"d","allOf":[{"$ref":"#/definitions/A"}]},"n":{"$ref":"#/definitions/B"}}}`},
		{"items and values", `{"type":"object","properties":{"l":{"type":"array","items":{"$ref":"#/definitions/A","default":{}}}},` +
			`"additionalProperties":{"$ref":"#/definitions/B","description":"v"}}`,
			`{"type":"object","properties":{"l":{"type":"array","items":{"default":{},"allOf":[{"$ref":"#/definitions/A"}]}}},` +
				`"additionalProperties":{"description":"v","allOf":[{"$ref":"#/definitions/B"}]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s spec.Schema
			if err := json.Unmarshal([]byte(tt.in), &s); err != nil {
				t.Fatal(err)
			}
			before, _ := json.Marshal(&s)
			out := wrapRefs(&s)
			got, _ := json.Marshal(out)
			if !jsonSame(t, got, []byte(tt.want)) {
				t.Errorf("got %s\nwant %s", got, tt.want)
			}
			if after, _ := json.Marshal(&s); string(after) != string(before) {
				t.Errorf("input changed: %s", after)
			}
			if string(before) == string(got) && out != &s {
				t.Errorf("an unchanged schema was copied")
			}
		})
	}
}

func jsonSame(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}
