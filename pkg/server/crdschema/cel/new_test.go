package cel

import (
	"context"
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/server/crdschema"
)

// TestNewFromStructural: rules compiled from the structural schema the
// server compiled (New) see the types, sizes and list keys that schema
// declares, exactly as Compile's, which compiles the schema itself.
func TestNewFromStructural(t *testing.T) {
	tests := []struct {
		name          string
		schema        string
		obj, old      string
		compile, want []string
	}{
		{
			name: "types and formats",
			schema: spec(`"d":{"type":"string","format":"duration"},"n":{"type":"integer"},"io":{"x-kubernetes-int-or-string":true}`,
				`{"rule":"self.d > duration('1s') && self.n > 1 && self.io != 'x'"}`),
			obj:  `{"spec":{"d":"1ms","n":2,"io":3}}`,
			want: []string{"Invalid value spec: failed rule: self.d > duration('1s') && self.n > 1 && self.io != 'x'"},
		},
		{
			name:    "a type error against the declared type",
			schema:  spec(`"n":{"type":"integer"}`, `{"rule":"self.n == 'a'"}`),
			compile: []string{"Invalid value spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: ..."},
		},
		{
			name: "unbounded cost from a missing maxItems",
			schema: spec(`"l":{"type":"array","items":{"type":"string"}}`,
				`{"rule":"self.l.all(x, self.l.all(y, self.l.all(z, x + y + z != '')))"}`),
			compile: []string{
				"Forbidden spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: estimated rule cost exceeds budget...",
				"Forbidden spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: contributed to estimated rule cost total...",
				"Forbidden spec.versions[0].schema.openAPIV3Schema: x-kubernetes-validations estimated rule cost total...",
			},
		},
		{
			name: "map-list items ratchet by key",
			schema: spec(`"ml":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k"],"maxItems":4,`+
				`"items":{"type":"object","required":["k"],"properties":{"k":{"type":"string","maxLength":4},"v":{"type":"integer"}},"x-kubernetes-validations":[{"rule":"self.v < 3"}]}}`, ""),
			obj:  `{"spec":{"ml":[{"k":"b","v":5},{"k":"a","v":9}]}}`,
			old:  `{"spec":{"ml":[{"k":"a","v":9}]}}`,
			want: []string{"Invalid value spec.ml[0]: failed rule: self.v < 3"},
		},
		{
			name:   "the root reads metadata.name only",
			schema: `{"type":"object","x-kubernetes-validations":[{"rule":"self.metadata.name != 'x'"}]}`,
			obj:    `{"metadata":{"name":"x"}}`,
			want:   []string{"Invalid value <nil>: failed rule: self.metadata.name != 'x'"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, serrs := crdschema.New(schema(t, tt.schema), rootPath)
			if len(serrs) > 0 {
				t.Fatal(serrs)
			}
			v, errs := New(st, rootPath)
			matchErrors(t, errs, tt.compile)
			if tt.compile != nil {
				return
			}
			matchErrors(t, v.Validate(context.Background(), object(t, tt.obj), object(t, tt.old)), tt.want)
		})
	}
}
