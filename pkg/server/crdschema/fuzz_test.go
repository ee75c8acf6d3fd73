package crdschema

import (
	"encoding/json"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	sigsjson "sigs.k8s.io/json"
)

// richSchema exercises every feature the runtime paths implement.
const richSchema = `
type: object
properties:
  apiVersion: {type: string}
  kind: {type: string}
  metadata:
    type: object
    properties:
      name: {type: string, maxLength: 30}
  spec:
    type: object
    default: {image: busybox}
    required: [image]
    properties:
      image: {type: string, minLength: 1, pattern: "^[a-z0-9./:-]+$"}
      replicas: {type: integer, format: int32, minimum: 0, maximum: 100, default: 1}
      ratio: {type: number, multipleOf: 0.5, exclusiveMaximum: true, maximum: 10}
      mode: {type: string, enum: [fast, slow], default: fast}
      when: {type: string, format: date-time}
      port: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}], default: 80}
      labels:
        type: object
        maxProperties: 10
        additionalProperties: {type: string, maxLength: 63}
      limits:
        type: object
        additionalProperties:
          type: object
          default: {}
          properties:
            max: {type: integer, default: 5}
      ports:
        type: array
        maxItems: 50
        x-kubernetes-list-type: map
        x-kubernetes-list-map-keys: [name, protocol]
        items:
          type: object
          required: [name]
          properties:
            name: {type: string}
            protocol: {type: string, default: TCP, enum: [TCP, UDP]}
            number: {type: integer, minimum: 1, maximum: 65535}
      tags:
        type: array
        x-kubernetes-list-type: set
        items: {type: string}
      matrix:
        type: array
        items: {type: array, items: {type: number, nullable: true}}
      selector:
        type: object
        properties:
          a: {type: string}
          b: {type: string}
        oneOf: [{required: [a]}, {required: [b]}]
        not: {required: [a, b]}
      template:
        type: object
        x-kubernetes-embedded-resource: true
        x-kubernetes-preserve-unknown-fields: true
      raw:
        type: object
        x-kubernetes-preserve-unknown-fields: true
        properties:
          known: {type: object, properties: {x: {type: boolean, default: true}}}
      note: {type: string, nullable: true}
    allOf:
    - properties:
        replicas: {minimum: 0}
    anyOf:
    - properties:
        mode: {enum: [fast]}
    - properties:
        replicas: {maximum: 5}
  status:
    type: object
    x-kubernetes-preserve-unknown-fields: true
`

var fuzzObjects = []string{
	`{}`,
	`{"apiVersion": "x/v1", "kind": "K", "metadata": {"name": "n"}, "spec": {"image": "nginx:1", "replicas": 3}}`,
	`{"spec": {"image": "a", "ports": [{"name": "http", "number": 80}, {"name": "http", "protocol": "TCP"}], "tags": ["a", "a"]}}`,
	`{"spec": {"image": "A!", "replicas": -1, "ratio": 10, "mode": "x", "when": "yesterday", "port": 1.5, "labels": {"a": 1}, "extra": {"x": 1}}}`,
	`{"spec": {"image": "a", "limits": {"cpu": null, "mem": {}}, "matrix": [[1, null, "x"], null], "selector": {"a": "1", "b": "2"}}}`,
	`{"spec": {"image": "a", "template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {}}, "raw": {"known": {"y": 1}, "z": [1]}}}`,
	`{"spec": null, "status": {"anything": [1, {"a": null}]}}`,
	`{"spec": [1, 2], "foo": "bar"}`,
	`{"spec": {"image": "a", "note": null, "port": "http", "ports": [null, 1]}}`,
}

// FuzzValidate feeds arbitrary objects through the write path: pruning,
// defaulting and validating must never panic, pruning must leave nothing
// for validation to call unknown, and defaulting must be idempotent.
func FuzzValidate(f *testing.F) {
	for _, o := range fuzzObjects {
		f.Add([]byte(o))
	}
	s := mustNew(f, richSchema)
	f.Fuzz(func(t *testing.T, data []byte) {
		var obj map[string]any
		if err := sigsjson.UnmarshalCaseSensitivePreserveInts(data, &obj); err != nil || obj == nil {
			return
		}
		s.Prune(obj)
		if again := s.Prune(obj); len(again) > 0 {
			t.Fatalf("second Prune removed %v", again)
		}
		s.Default(obj)
		once := deepCopy(obj)
		s.Default(obj)
		if !EqualJSON(once, obj) {
			a, _ := json.Marshal(once)
			b, _ := json.Marshal(obj)
			t.Fatalf("Default is not idempotent:\n%s\n%s", a, b)
		}
		for _, e := range s.Validate(obj) {
			if strings.Contains(e.Detail, "forbidden property") {
				t.Fatalf("unknown field survived pruning: %v", e)
			}
		}
	})
}

var fuzzSchemas = []string{
	`{"type": "object"}`,
	`{"type": "object", "properties": {"a": {"type": "string", "default": "x"}, "b": {"type": "array", "items": {"type": "integer"}}}}`,
	`{"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {"type": "object", "properties": {"x": {"type": "number", "default": 1}}}}}}`,
	`{"type": "object", "x-kubernetes-preserve-unknown-fields": true, "anyOf": [{"required": ["a"]}, {"not": {"required": ["b"]}}]}`,
	`{"type": "object", "properties": {"l": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["k"], "items": {"type": "object", "required": ["k"], "properties": {"k": {"type": "string"}}}}}}`,
	`{"type": "object", "properties": {"e": {"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true}, "i": {"x-kubernetes-int-or-string": true}}}`,
	`{"type": "object", "properties": {"s": {"type": "string", "enum": ["a", 1, null], "format": "uuid", "pattern": "^a"}}}`,
	`{"properties": {"a": {}}, "allOf": [{"type": "string"}], "$ref": "x"}`,
}

var fuzzSampleObjects = []string{
	`{}`,
	`{"a": "x", "b": [1, "2"], "m": {"k": {"x": 2, "y": 3}, "j": null}}`,
	`{"l": [{"k": "a"}, {"k": "a"}, {}], "e": {"kind": "K"}, "i": 1.5, "s": "b"}`,
	`{"a": null, "x": {"y": [[[]]]}, "s": 5, "e": []}`,
}

// FuzzNew feeds arbitrary schemas to New; whatever it accepts must be
// usable on any object without panicking.
func FuzzNew(f *testing.F) {
	for _, s := range fuzzSchemas {
		f.Add([]byte(s))
	}
	var objects []map[string]any
	for _, o := range fuzzSampleObjects {
		objects = append(objects, parseObject(f, o))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var props apiextensionsv1.JSONSchemaProps
		if err := json.Unmarshal(data, &props); err != nil {
			return
		}
		s, errs := New(&props, schemaPath)
		if (s == nil) == (len(errs) == 0) {
			t.Fatalf("New returned schema %v with errors %v", s != nil, errs)
		}
		if s == nil {
			return
		}
		for _, o := range objects {
			obj := deepCopy(o).(map[string]any)
			s.Validate(obj)
			s.Prune(obj)
			s.Default(obj)
			s.Validate(obj)
		}
	})
}
