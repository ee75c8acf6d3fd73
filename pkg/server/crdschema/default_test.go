package crdschema

import (
	"encoding/json"
	"testing"
)

func TestDefault(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		obj    string
		want   string
	}{
		{
			name:   "missing fields of present objects",
			schema: `{type: object, properties: {spec: {type: object, properties: {replicas: {type: integer, default: 1}, mode: {type: string, default: a}, keep: {type: string, default: x}}}, absent: {type: object, properties: {a: {type: string, default: x}}}}}`,
			obj:    `{"spec": {"keep": "mine"}}`,
			want:   `{"spec": {"replicas": 1, "mode": "a", "keep": "mine"}}`,
		},
		{
			name: "nested defaults apply inside a default object",
			schema: `
type: object
properties:
  spec:
    type: object
    default: {}
    properties:
      a: {type: string, default: x}
      b:
        type: object
        default: {c: given}
        properties:
          c: {type: string, default: ignored}
          d: {type: integer, default: 4}`,
			obj:  `{}`,
			want: `{"spec": {"a": "x", "b": {"c": "given", "d": 4}}}`,
		},
		{
			name: "arrays of objects",
			schema: `
type: object
properties:
  list:
    type: array
    items:
      type: object
      default: {name: anon}
      properties:
        name: {type: string}
        port: {type: integer, default: 80}`,
			obj:  `{"list": [{"name": "a"}, {"name": "b", "port": 8080}, null]}`,
			want: `{"list": [{"name": "a", "port": 80}, {"name": "b", "port": 8080}, {"name": "anon", "port": 80}]}`,
		},
		{
			name: "additionalProperties maps",
			schema: `
type: object
properties:
  m:
    type: object
    additionalProperties:
      type: object
      default: {}
      properties:
        size: {type: integer, default: 1}`,
			obj:  `{"m": {"a": {}, "b": {"size": 2}, "c": null}}`,
			want: `{"m": {"a": {"size": 1}, "b": {"size": 2}, "c": {"size": 1}}}`,
		},
		{
			name:   "null is replaced when not nullable, kept when nullable",
			schema: `{type: object, properties: {a: {type: string, default: x}, b: {type: string, nullable: true, default: z}}}`,
			obj:    `{"a": null, "b": null}`,
			want:   `{"a": "x", "b": null}`,
		},
		{
			name:   "defaults under preserve-unknown-fields",
			schema: `{type: object, properties: {raw: {type: object, x-kubernetes-preserve-unknown-fields: true, properties: {a: {type: integer, default: 3}}}}}`,
			obj:    `{"raw": {"other": {}}}`,
			want:   `{"raw": {"other": {}, "a": 3}}`,
		},
		{
			name:   "wrong shapes are left alone",
			schema: `{type: object, properties: {spec: {type: object, properties: {a: {type: string, default: x}}}, l: {type: array, items: {type: object, properties: {b: {type: string, default: z}}}}}}`,
			obj:    `{"spec": "string", "l": [1, "x"]}`,
			want:   `{"spec": "string", "l": [1, "x"]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustNew(t, tt.schema)
			obj := parseObject(t, tt.obj)
			s.Default(obj)
			if want := parseObject(t, tt.want); !EqualJSON(obj, want) {
				got, _ := json.Marshal(obj)
				t.Errorf("defaulted object:\ngot:  %s\nwant: %s", got, tt.want)
			}
		})
	}
}

// TestDefaultCopies makes sure objects never share a default's memory:
// changing one defaulted object must not change the next.
func TestDefaultCopies(t *testing.T) {
	s := mustNew(t, `{type: object, properties: {spec: {type: object, default: {l: [1]}, properties: {l: {type: array, items: {type: integer}}}}}}`)
	a := map[string]any{}
	s.Default(a)
	a["spec"].(map[string]any)["l"].([]any)[0] = int64(9)
	b := map[string]any{}
	s.Default(b)
	if got := b["spec"].(map[string]any)["l"].([]any)[0]; got != int64(1) {
		t.Errorf("second default got %v, want 1", got)
	}
}

func TestDefaultWithoutDefaults(t *testing.T) {
	s := mustNew(t, `{type: object, properties: {a: {type: string}}}`)
	obj := map[string]any{"a": nil}
	s.Default(obj)
	s.Default(nil)
	if len(obj) != 1 {
		t.Errorf("Default changed %v", obj)
	}
}
