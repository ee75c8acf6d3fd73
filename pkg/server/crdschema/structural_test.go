package crdschema

import (
	"reflect"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestNew(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   []string
	}{
		{name: "minimal", schema: `type: object`},
		{name: "typical", schema: `
type: object
properties:
  apiVersion: {type: string}
  kind: {type: string}
  metadata:
    type: object
    properties:
      name: {type: string, maxLength: 20}
  spec:
    type: object
    required: [image]
    properties:
      image: {type: string, minLength: 1}
      replicas: {type: integer, format: int32, minimum: 0, maximum: 10, default: 1}
      mode: {type: string, enum: [a, b], default: a}
      port: {x-kubernetes-int-or-string: true}
      labels: {type: object, additionalProperties: {type: string}}
      ports:
        type: array
        x-kubernetes-list-type: map
        x-kubernetes-list-map-keys: [name]
        items:
          type: object
          required: [name]
          properties:
            name: {type: string}
            port: {type: integer, default: 80}
      tags:
        type: array
        x-kubernetes-list-type: set
        items: {type: string}
      template:
        type: object
        x-kubernetes-embedded-resource: true
        x-kubernetes-preserve-unknown-fields: true
      raw:
        type: object
        x-kubernetes-preserve-unknown-fields: true
    oneOf:
    - required: [image]
    - required: [replicas]
  status:
    type: object
    x-kubernetes-preserve-unknown-fields: true
`},
		{name: "int-or-string anyOf pattern", schema: `
type: object
properties:
  a:
    x-kubernetes-int-or-string: true
    anyOf: [{type: integer}, {type: string}]
  b:
    x-kubernetes-int-or-string: true
    allOf:
    - anyOf: [{type: integer}, {type: string}]
    - pattern: "^[0-9]+%?$"
`},
		{name: "preserve unknown fields without type", schema: `
type: object
properties:
  x: {x-kubernetes-preserve-unknown-fields: true}
`},
		{name: "missing types", schema: `
properties:
  a: {}
  b:
    type: array
    items: {}
`, want: []string{
			"s.properties[a].type: Required value: must not be empty for specified object fields",
			"s.properties[b].items.type: Required value: must not be empty for specified array items",
			"s.type: Required value: must not be empty at the root",
		}},
		{name: "invalid and null types", schema: `
type: object
properties:
  a: {type: "null"}
  b: {type: str}
`, want: []string{
			`s.properties[a].type: Forbidden: type cannot be set to null, use nullable as an alternative`,
			`s.properties[a].type: Unsupported value: "null": supported values: "array", "boolean", "integer", "number", "object", "string"`,
			`s.properties[b].type: Unsupported value: "str": supported values: "array", "boolean", "integer", "number", "object", "string"`,
		}},
		{name: "root must be object", schema: `type: string`, want: []string{
			`s.type: Invalid value: "string": must be object at the root`,
		}},
		{name: "root nullable and additionalProperties", schema: `
type: object
nullable: true
additionalProperties: {type: string}
`, want: []string{
			"s.additionalProperties: Forbidden: must not be used at the root",
			"s.nullable: Forbidden: nullable cannot be true at the root",
		}},
		{name: "array without items", schema: `
type: object
properties:
  a: {type: array}
`, want: []string{"s.properties[a].items: Required value: must be specified"}},
		{name: "properties and additionalProperties", schema: `
type: object
properties:
  a:
    type: object
    properties: {x: {type: string}}
    additionalProperties: {type: string}
  b:
    type: object
    properties: {x: {type: string}}
    additionalProperties: true
  c:
    type: object
    properties: {x: {type: string}}
    additionalProperties: false
`, want: []string{
			"s.properties[a].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive",
			"s.properties[c].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive",
		}},
		{name: "forbidden in junctors", schema: `
type: object
properties:
  a:
    type: string
    anyOf:
    - type: string
      description: d
      title: t
      nullable: true
      default: x
      x-kubernetes-preserve-unknown-fields: true
      x-kubernetes-int-or-string: true
      x-kubernetes-embedded-resource: true
      x-kubernetes-map-type: atomic
      x-kubernetes-validations: [{rule: "true"}]
    - additionalProperties: {type: string}
    allOf:
    - x-kubernetes-list-type: atomic
      x-kubernetes-list-map-keys: [a]
`, want: []string{
			"s.properties[a].allOf[0].type: Required value: must be array if x-kubernetes-list-type is specified",
			"s.properties[a].allOf[0].x-kubernetes-list-map-keys: Forbidden: must be empty to be structural",
			"s.properties[a].allOf[0].x-kubernetes-list-type: Forbidden: must be undefined to be structural",
			`s.properties[a].allOf[0].x-kubernetes-list-type: Invalid value: "atomic": must be map if x-kubernetes-list-map-keys is non-empty`,
			"s.properties[a].anyOf[0].default: Forbidden: must be undefined to be structural",
			"s.properties[a].anyOf[0].description: Forbidden: must be empty to be structural",
			"s.properties[a].anyOf[0].nullable: Forbidden: must be false to be structural",
			"s.properties[a].anyOf[0].title: Forbidden: must be empty to be structural",
			"s.properties[a].anyOf[0].type: Forbidden: must be empty to be structural",
			`s.properties[a].anyOf[0].type: Invalid value: "string": must be object if x-kubernetes-map-type is specified`,
			"s.properties[a].anyOf[0].x-kubernetes-embedded-resource: Forbidden: must be false to be structural",
			"s.properties[a].anyOf[0].x-kubernetes-int-or-string: Forbidden: must be false to be structural",
			"s.properties[a].anyOf[0].x-kubernetes-map-type: Forbidden: must be undefined to be structural",
			"s.properties[a].anyOf[0].x-kubernetes-preserve-unknown-fields: Forbidden: must be false to be structural",
			"s.properties[a].anyOf[0].x-kubernetes-validations: Forbidden: must be empty to be structural",
			"s.properties[a].anyOf[1].additionalProperties: Forbidden: must be undefined to be structural",
		}},
		{name: "junctors must not specify more than the structural part", schema: `
type: object
properties:
  a: {type: object, properties: {x: {type: string}}}
  l: {type: array, items: {type: string}}
  s: {type: string}
allOf:
- properties:
    a: {properties: {z: {minLength: 1}}}
    b: {minLength: 1}
anyOf:
- properties:
    s: {items: {minLength: 1}}
not:
  properties:
    l: {items: {maxLength: 3}}
    metadata: {}
`, want: []string{
			"s.not.properties[metadata]: Forbidden: must not be specified in a nested context",
			"s.properties[a].properties[z]: Required value: because it is defined in s.allOf[0].properties[a].properties[z]",
			"s.properties[b]: Required value: because it is defined in s.allOf[0].properties[b]",
			"s.properties[metadata]: Required value: because it is defined in s.not.properties[metadata]",
			"s.properties[s].items: Required value: because it is defined in s.anyOf[0].properties[s].items",
		}},
		{name: "int-or-string conflicts", schema: `
type: object
properties:
  a:
    x-kubernetes-int-or-string: true
    x-kubernetes-preserve-unknown-fields: true
  b:
    type: object
    x-kubernetes-int-or-string: true
    x-kubernetes-embedded-resource: true
    x-kubernetes-preserve-unknown-fields: true
  c:
    x-kubernetes-int-or-string: true
    anyOf: [{type: integer}, {type: boolean}]
`, want: []string{
			"s.properties[a].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true",
			"s.properties[b].x-kubernetes-embedded-resource: Invalid value: true: must be false if x-kubernetes-int-or-string is true",
			"s.properties[b].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true",
			"s.properties[c].anyOf[0].type: Forbidden: must be empty to be structural",
			"s.properties[c].anyOf[1].type: Forbidden: must be empty to be structural",
		}},
		{name: "root metadata", schema: `
type: object
properties:
  metadata:
    type: object
    properties:
      name: {type: string}
      labels: {type: object}
`, want: []string{
			"s.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified",
		}},
		{name: "root metadata with description and default", schema: `
type: object
properties:
  metadata:
    type: object
    description: meta
    default: {}
`, want: []string{
			"s.properties[metadata].default: Forbidden: must not be set in top-level metadata",
			"s.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified",
		}},
		{name: "root metadata type, kind, apiVersion", schema: `
type: object
properties:
  metadata: {type: string}
  kind: {type: integer}
  apiVersion: {type: string, default: v1}
`, want: []string{
			"s.properties[apiVersion].default: Forbidden: must not be set in top-level apiVersion",
			`s.properties[kind].type: Invalid value: "integer": must be string`,
			`s.properties[metadata].type: Invalid value: "string": must be object`,
		}},
		{name: "root metadata restricting name and generateName is fine", schema: `
type: object
properties:
  metadata:
    type: object
    properties:
      name: {type: string, pattern: "^[a-z]+$"}
      generateName: {type: string, maxLength: 10}
`},
		{name: "embedded resources", schema: `
type: object
properties:
  a: {type: string, x-kubernetes-embedded-resource: true}
  b: {x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}
  c: {type: object, x-kubernetes-embedded-resource: true}
  d:
    type: object
    x-kubernetes-embedded-resource: true
    additionalProperties: {type: string}
  e:
    type: object
    x-kubernetes-embedded-resource: true
    properties:
      kind: {type: integer}
      metadata:
        type: object
        properties:
          labels:
            type: object
            additionalProperties: {type: string, default: x}
          x:
            type: object
            x-kubernetes-embedded-resource: true
            x-kubernetes-preserve-unknown-fields: true
`, want: []string{
			"s.properties[a].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
			`s.properties[a].type: Invalid value: "string": must be object if x-kubernetes-embedded-resource is true`,
			"s.properties[b].type: Required value: must be object if x-kubernetes-embedded-resource is true",
			"s.properties[c].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
			"s.properties[d].additionalProperties: Forbidden: must not be used if x-kubernetes-embedded-resource is set",
			"s.properties[d].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
			`s.properties[e].properties[kind].type: Invalid value: "integer": must be string`,
			"s.properties[e].properties[metadata].properties[labels].additionalProperties.default: Forbidden: must not be set inside additionalProperties applying to object metadata",
			"s.properties[e].properties[metadata].properties[x].x-kubernetes-embedded-resource: Forbidden: must not be used inside of resource meta",
		}},
		{name: "unsupported OpenAPI features", schema: `
type: object
id: x
$schema: http://json-schema.org/schema#
$ref: "#/definitions/x"
definitions: {x: {type: string}}
properties:
  a:
    type: array
    items: [{type: string}]
    additionalItems: true
    uniqueItems: true
  b:
    type: object
    patternProperties: {"^x": {type: string}}
    dependencies: {x: [z]}
  c:
    type: string
    x-kubernetes-preserve-unknown-fields: false
`, want: []string{
			"s.$ref: Forbidden: $ref is not supported",
			"s.$schema: Forbidden: $schema is not supported",
			"s.definitions: Forbidden: definitions is not supported",
			"s.id: Forbidden: id is not supported",
			"s.properties[a].additionalItems: Forbidden: additionalItems is not supported",
			"s.properties[a].items: Forbidden: items must be a schema object and not an array",
			"s.properties[a].items: Required value: must be specified",
			"s.properties[a].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
			"s.properties[b].dependencies: Forbidden: dependencies is not supported",
			"s.properties[b].patternProperties: Forbidden: patternProperties is not supported",
			"s.properties[c].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined",
		}},
		{name: "bad pattern", schema: `
type: object
properties:
  a: {type: string, pattern: "a("}
`, want: []string{
			"s.properties[a].pattern: Invalid value: \"a(\": must be a valid regular expression, but isn't: error parsing regexp: missing closing ): `a(`",
		}},
		{name: "map type", schema: `
type: object
properties:
  a: {type: string, x-kubernetes-map-type: atomic}
  b: {type: object, x-kubernetes-map-type: other}
  c: {type: object, x-kubernetes-map-type: granular}
`, want: []string{
			`s.properties[a].type: Invalid value: "string": must be object if x-kubernetes-map-type is specified`,
			`s.properties[b].x-kubernetes-map-type: Unsupported value: "other": supported values: "atomic", "granular"`,
		}},
		{name: "list types", schema: `
type: object
properties:
  a: {type: string, x-kubernetes-list-type: set}
  b: {type: array, items: {type: string}, x-kubernetes-list-type: bag}
  c: {type: array, items: {type: string}, x-kubernetes-list-map-keys: [x]}
  d: {type: array, items: {type: string}, x-kubernetes-list-type: map}
  e:
    type: array
    x-kubernetes-list-type: map
    x-kubernetes-list-map-keys: [k, o, missing, k]
    items:
      type: object
      properties:
        k: {type: string, nullable: true}
        o: {type: object}
  f:
    type: array
    x-kubernetes-list-type: set
    items: {type: object, nullable: true}
  g:
    type: array
    x-kubernetes-list-type: set
    items: {type: array, x-kubernetes-list-type: set, items: {type: string}}
  h:
    type: array
    x-kubernetes-list-type: set
    items: {type: object, x-kubernetes-map-type: atomic}
  i:
    type: array
    x-kubernetes-list-type: map
    x-kubernetes-list-map-keys: [k]
    items:
      type: object
      properties:
        k: {type: string, default: x}
`, want: []string{
			`s.properties[a].type: Invalid value: "string": must be array if x-kubernetes-list-type is specified`,
			`s.properties[b].x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"`,
			"s.properties[c].x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty",
			`s.properties[d].items.type: Invalid value: "string": must be object if parent array's x-kubernetes-list-type is map`,
			"s.properties[d].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map",
			// kube reports a key listed twice twice.
			"s.properties[e].items.properties[k].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
			"s.properties[e].items.properties[k].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
			"s.properties[e].items.properties[k].nullable: Forbidden: this property is in x-kubernetes-list-map-keys, so it cannot be nullable",
			"s.properties[e].items.properties[k].nullable: Forbidden: this property is in x-kubernetes-list-map-keys, so it cannot be nullable",
			"s.properties[e].items.properties[o].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
			`s.properties[e].items.properties[o].type: Invalid value: "object": must be a scalar type if parent array's x-kubernetes-list-type is map`,
			`s.properties[e].x-kubernetes-list-map-keys: Invalid value: ["k","o","missing","k"]: entries must all be names of item properties`,
			`s.properties[e].x-kubernetes-list-map-keys: Invalid value: ["k","o","missing","k"]: must not contain duplicate entries`,
			"s.properties[f].items.nullable: Forbidden: cannot be nullable when x-kubernetes-list-type is set",
			"s.properties[f].items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set",
			`s.properties[g].items.x-kubernetes-list-type: Invalid value: "set": must be atomic as item of a list with x-kubernetes-list-type=set`,
		}},
		{name: "invalid defaults", schema: `
type: object
properties:
  spec:
    type: object
    properties:
      replicas: {type: integer, maximum: 5, default: 7}
      name: {type: string, default: 3}
      obj:
        type: object
        properties: {a: {type: string}}
        default: {a: x, b: z}
      items:
        type: array
        items: {type: string, enum: [a, b]}
        default: [a, c]
      emb:
        type: object
        x-kubernetes-embedded-resource: true
        x-kubernetes-preserve-unknown-fields: true
        default: {kind: Foo}
`, want: []string{
			"s.properties[spec].properties[emb].default.apiVersion: Required value",
			`s.properties[spec].properties[items].default[1]: Unsupported value: "c": supported values: "a", "b"`,
			`s.properties[spec].properties[name].default: Invalid value: "integer": in body must be of type string: "integer"`,
			`s.properties[spec].properties[obj].default: Invalid value: {"a":"x","b":"z"}: must not have unknown fields`,
			"s.properties[spec].properties[replicas].default: Invalid value: 7: in body should be less than or equal to 5",
		}},
		{name: "default null means no default", schema: `
type: object
properties:
  a: {type: string, nullable: true, default: null}
`},
		{name: "default metadata inside embedded resource is kept", schema: `
type: object
properties:
  t:
    type: object
    x-kubernetes-embedded-resource: true
    properties:
      apiVersion: {type: string}
      kind: {type: string}
      spec: {type: object, properties: {x: {type: string}}}
    default: {apiVersion: v1, kind: Pod, metadata: {name: x}, spec: {x: z}}
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, errs := New(parseSchema(t, tt.schema), schemaPath)
			diffStrings(t, "errors", errorStrings(errs), tt.want)
			if (s == nil) != (len(errs) > 0) {
				t.Errorf("New returned schema %v with %d errors", s != nil, len(errs))
			}
		})
	}
}

func TestNewNil(t *testing.T) {
	if _, errs := New(nil, field.NewPath("x")); len(errs) != 1 || errs[0].Type != field.ErrorTypeRequired {
		t.Errorf("New(nil) = %v, want one Required error", errs)
	}
}

func TestNewPathPrefix(t *testing.T) {
	p := field.NewPath("spec", "versions").Index(0).Child("schema", "openAPIV3Schema")
	_, errs := New(parseSchema(t, `{type: object, properties: {a: {}}}`), p)
	diffStrings(t, "errors", errorStrings(errs), []string{
		"spec.versions[0].schema.openAPIV3Schema.properties[a].type: Required value: must not be empty for specified object fields",
	})
}

func TestPropsAndHasDefaults(t *testing.T) {
	props := parseSchema(t, `{type: object, properties: {a: {type: string}}}`)
	s, errs := New(props, schemaPath)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if s.Props() != props {
		t.Error("Props does not return the schema given")
	}
	if s.HasDefaults() {
		t.Error("HasDefaults without defaults")
	}
	if !mustNew(t, `{type: object, properties: {a: {type: array, items: {type: object, properties: {b: {type: string, default: x}}}}}}`).HasDefaults() {
		t.Error("HasDefaults misses a nested default")
	}
	if !mustNew(t, `{type: object, properties: {m: {type: object, additionalProperties: {type: string, default: x}}}}`).HasDefaults() {
		t.Error("HasDefaults misses an additionalProperties default")
	}
}

// TestIsEmptySchemaCoversAllFields guards rootMetadata and the
// int-or-string detection against fields added to JSONSchemaProps later.
func TestIsEmptySchemaCoversAllFields(t *testing.T) {
	typ := reflect.TypeOf(apiextensionsv1.JSONSchemaProps{})
	for i := 0; i < typ.NumField(); i++ {
		var s apiextensionsv1.JSONSchemaProps
		f := reflect.ValueOf(&s).Elem().Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString("x")
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Ptr:
			f.Set(reflect.New(f.Type().Elem()))
		case reflect.Slice:
			f.Set(reflect.MakeSlice(f.Type(), 1, 1))
		case reflect.Map:
			m := reflect.MakeMap(f.Type())
			m.SetMapIndex(reflect.ValueOf("k").Convert(f.Type().Key()), reflect.Zero(f.Type().Elem()))
			f.Set(m)
		default:
			t.Fatalf("field %s: unexpected kind %v", typ.Field(i).Name, f.Kind())
		}
		if isEmptySchema(&s) {
			t.Errorf("isEmptySchema ignores field %s", typ.Field(i).Name)
		}
	}
}
