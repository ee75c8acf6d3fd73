package crdschema

import (
	"encoding/json"
	"testing"
)

func TestPrune(t *testing.T) {
	tests := []struct {
		name    string
		schema  string
		obj     string
		want    string
		removed []string
	}{
		{
			name:    "unknown fields at all levels",
			schema:  `{type: object, properties: {spec: {type: object, properties: {a: {type: string}, list: {type: array, items: {type: object, properties: {b: {type: string}}}}}}}}`,
			obj:     `{"apiVersion": "x/v1", "kind": "K", "metadata": {"name": "n", "junk": 1}, "spec": {"a": "x", "foo": 1, "list": [{"b": "y", "bar": 2}, {"bar": {"deep": 1}}]}, "extra": true}`,
			want:    `{"apiVersion": "x/v1", "kind": "K", "metadata": {"name": "n", "junk": 1}, "spec": {"a": "x", "list": [{"b": "y"}, {}]}}`,
			removed: []string{"extra", "spec.foo", "spec.list[0].bar", "spec.list[1].bar"},
		},
		{
			name:    "preserve-unknown-fields keeps unknown fields but prunes known ones",
			schema:  `{type: object, properties: {raw: {type: object, x-kubernetes-preserve-unknown-fields: true, properties: {known: {type: object, properties: {a: {type: string}}}}}}}`,
			obj:     `{"raw": {"anything": {"goes": [1, 2]}, "known": {"a": "x", "b": "y"}}}`,
			want:    `{"raw": {"anything": {"goes": [1, 2]}, "known": {"a": "x"}}}`,
			removed: []string{"raw.known.b"},
		},
		{
			name:    "preserve-unknown-fields at the root",
			schema:  `{type: object, x-kubernetes-preserve-unknown-fields: true, properties: {spec: {type: object, properties: {a: {type: string}}}}}`,
			obj:     `{"x": 1, "spec": {"a": "x", "b": 1}}`,
			want:    `{"x": 1, "spec": {"a": "x"}}`,
			removed: []string{"spec.b"},
		},
		{
			name:    "preserving lists preserve their items' fields",
			schema:  `{type: object, properties: {l: {type: array, x-kubernetes-preserve-unknown-fields: true, items: {type: object, properties: {o: {type: object, properties: {a: {type: string}}}}}}}}`,
			obj:     `{"l": [{"x": 1, "o": {"a": "x", "b": 1}}]}`,
			want:    `{"l": [{"x": 1, "o": {"a": "x"}}]}`,
			removed: []string{"l[0].o.b"},
		},
		{
			name:    "additionalProperties schema",
			schema:  `{type: object, properties: {m: {type: object, additionalProperties: {type: object, properties: {a: {type: string}}}}}}`,
			obj:     `{"m": {"k1": {"a": "x", "b": 1}, "k.2": {"c": 2}}}`,
			want:    `{"m": {"k1": {"a": "x"}, "k.2": {}}}`,
			removed: []string{"m.k.2.c", "m.k1.b"},
		},
		{
			name:    "additionalProperties true keeps keys but not their contents",
			schema:  `{type: object, properties: {m: {type: object, additionalProperties: true}}}`,
			obj:     `{"m": {"s": "x", "o": {"a": 1}, "l": [{"b": 1}, 2]}}`,
			want:    `{"m": {"s": "x", "o": {}, "l": [{}, 2]}}`,
			removed: []string{"m.l[0].b", "m.o.a"},
		},
		{
			name:   "additionalProperties false keeps keys for validation to reject",
			schema: `{type: object, properties: {m: {type: object, additionalProperties: false}}}`,
			obj:    `{"m": {"s": "x"}}`,
			want:   `{"m": {"s": "x"}}`,
		},
		{
			name: "embedded resources keep apiVersion, kind and metadata",
			schema: `
type: object
properties:
  t:
    type: object
    x-kubernetes-embedded-resource: true
    properties:
      spec: {type: object, properties: {a: {type: string}}}
  o:
    type: object
    properties:
      spec: {type: object}`,
			obj:     `{"t": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x", "whatever": 1}, "spec": {"a": "x", "b": 1}, "status": {}}, "o": {"apiVersion": "v1", "kind": "K", "spec": {"z": 1}}}`,
			want:    `{"t": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x", "whatever": 1}, "spec": {"a": "x"}}, "o": {"spec": {}}}`,
			removed: []string{"o.apiVersion", "o.kind", "o.spec.z", "t.spec.b", "t.status"},
		},
		{
			name:    "objects without properties are emptied, whatever the type says",
			schema:  `{type: object, properties: {o: {type: object}, s: {type: string}}}`,
			obj:     `{"o": {"a": 1}, "s": {"a": 1}}`,
			want:    `{"o": {}, "s": {}}`,
			removed: []string{"o.a", "s.a"},
		},
		{
			name:   "non-nullable nulls without default are dropped",
			schema: `{type: object, properties: {a: {type: string}, b: {type: string, nullable: true}, c: {type: string, default: x}, m: {type: object, additionalProperties: {type: string}}, l: {type: array, items: {type: string}}}}`,
			obj:    `{"a": null, "b": null, "c": null, "m": {"k": null}, "l": [null]}`,
			want:   `{"b": null, "c": null, "m": {}, "l": [null]}`,
		},
		{
			name:   "nothing to prune",
			schema: `{type: object, properties: {spec: {type: object, properties: {a: {type: string}}}}}`,
			obj:    `{"apiVersion": "x/v1", "kind": "K", "metadata": {}, "spec": {"a": "x"}}`,
			want:   `{"apiVersion": "x/v1", "kind": "K", "metadata": {}, "spec": {"a": "x"}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustNew(t, tt.schema)
			obj := parseObject(t, tt.obj)
			removed := s.Prune(obj)
			diffStrings(t, "removed", removed, tt.removed)
			if want := parseObject(t, tt.want); !EqualJSON(obj, want) {
				got, _ := json.Marshal(obj)
				t.Errorf("pruned object:\ngot:  %s\nwant: %s", got, tt.want)
			}
		})
	}
}
