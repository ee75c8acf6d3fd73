package crdschema

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		opts   options
		obj    string
		want   []string
	}{
		{
			name:   "types",
			schema: `{type: object, properties: {s: {type: string}, i: {type: integer}, num: {type: number}, b: {type: boolean}, o: {type: object}, a: {type: array, items: {type: string}}}}`,
			obj:    `{"s": 1, "i": "x", "num": true, "b": 1.5, "o": [], "a": {}}`,
			want: []string{
				`a: Invalid value: "object": a in body must be of type array: "object"`,
				`b: Invalid value: "number": b in body must be of type boolean: "number"`,
				`i: Invalid value: "string": i in body must be of type integer: "string"`,
				`num: Invalid value: "boolean": num in body must be of type number: "boolean"`,
				`o: Invalid value: "array": o in body must be of type object: "array"`,
				`s: Invalid value: "integer": s in body must be of type string: "integer"`,
			},
		},
		{
			name:   "numbers: integers are numbers, integral floats are integers",
			schema: `{type: object, properties: {i: {type: integer}, j: {type: integer}, n: {type: number}}}`,
			obj:    `{"i": 2.0, "j": 2.5, "n": 3}`,
			want:   []string{`j: Invalid value: "number": j in body must be of type integer: "number"`},
		},
		{
			name:   "nullable",
			schema: `{type: object, properties: {a: {type: string, nullable: true}, b: {type: string}, c: {x-kubernetes-preserve-unknown-fields: true}}}`,
			obj:    `{"a": null, "b": null, "c": null}`,
			want:   []string{`b: Invalid value: "null": b in body must be of type string: "null"`},
		},
		{
			name: "enum",
			schema: `
type: object
properties:
  spec:
    type: object
    properties:
      mode: {type: string, enum: [a, b]}
      num: {type: integer, enum: [1, 2]}
      num2: {type: number, enum: [1.5, 2]}
      obj: {type: object, x-kubernetes-preserve-unknown-fields: true, enum: [{a: 1}]}
      ok: {type: number, enum: [2]}
      nul: {type: string, nullable: true, enum: [a]}
      nulOK: {type: string, nullable: true, enum: [a, null]}`,
			obj: `{"spec": {"mode": "x", "num": 3, "num2": 1, "obj": {"a": 2}, "ok": 2.0, "nul": null, "nulOK": null}}`,
			want: []string{
				`spec.mode: Unsupported value: "x": supported values: "a", "b"`,
				`spec.nul: Unsupported value: null: supported values: "a"`,
				`spec.num: Unsupported value: 3: supported values: "1", "2"`,
				`spec.num2: Unsupported value: 1: supported values: "1.5", "2"`,
				`spec.obj: Unsupported value: {"a":2}: supported values: "{\"a\":1}"`,
			},
		},
		{
			name:   "large string enum",
			schema: fmt.Sprintf(`{type: object, properties: {e: {type: string, enum: [%s]}}}`, enumList(20)),
			obj:    `{"e": "v21"}`,
			want:   []string{fmt.Sprintf(`e: Unsupported value: "v21": supported values: %s`, quotedEnumList(20))},
		},
		{
			name:   "large string enum accepts",
			schema: fmt.Sprintf(`{type: object, properties: {e: {type: string, enum: [%s]}}}`, enumList(20)),
			obj:    `{"e": "v13"}`,
		},
		{
			name: "strings",
			schema: `
type: object
properties:
  long: {type: string, maxLength: 3}
  short: {type: string, minLength: 3}
  runes: {type: string, maxLength: 3}
  pat: {type: string, pattern: "^[a-z]+$"}
  both: {type: string, maxLength: 2, pattern: "^[a-z]+$"}`,
			obj: `{"long": "abcd", "short": "ab", "runes": "äöü", "pat": "A1", "both": "ABC"}`,
			want: []string{
				`both: Too long: may not be more than 2 bytes`,
				`long: Too long: may not be more than 3 bytes`,
				`pat: Invalid value: "A1": pat in body should match '^[a-z]+$'`,
				`short: Invalid value: "ab": short in body should be at least 3 chars long`,
			},
		},
		{
			name: "bounds",
			schema: `
type: object
properties:
  spec:
    type: object
    properties:
      replicas: {type: integer, maximum: 10}
      low: {type: integer, minimum: 1}
      exMax: {type: number, maximum: 1.5, exclusiveMaximum: true}
      exMin: {type: integer, minimum: 0, exclusiveMinimum: true}
      big: {type: number, maximum: 1000000}
      fine: {type: integer, minimum: 1, maximum: 10}`,
			obj: `{"spec": {"replicas": 11, "low": 0, "exMax": 1.5, "exMin": 0, "big": 1000000.5, "fine": 10}}`,
			want: []string{
				`spec.big: Invalid value: 1.0000005e+06: spec.big in body should be less than or equal to 1e+06`,
				`spec.exMax: Invalid value: 1.5: spec.exMax in body should be less than 1.5`,
				`spec.exMin: Invalid value: 0: spec.exMin in body should be greater than 0`,
				`spec.low: Invalid value: 0: spec.low in body should be greater than or equal to 1`,
				`spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10`,
			},
		},
		{
			name:   "large integers compare exactly",
			schema: `{type: object, properties: {i: {type: integer, maximum: 9007199254740992}}}`,
			obj:    `{"i": 9007199254740993}`,
			want:   []string{`i: Invalid value: 9007199254740993: i in body should be less than or equal to 9007199254740992`},
		},
		{
			name:   "multipleOf",
			schema: `{type: object, properties: {i: {type: integer, multipleOf: 3}, f: {type: number, multipleOf: 0.1}, g: {type: number, multipleOf: 0.5}, ok: {type: number, multipleOf: 0.01}}}`,
			obj:    `{"i": 10, "f": 0.35, "g": 1.25, "ok": 0.07}`,
			want: []string{
				`f: Invalid value: 0.35: f in body should be a multiple of 0.1`,
				`g: Invalid value: 1.25: g in body should be a multiple of 0.5`,
				`i: Invalid value: 10: i in body should be a multiple of 3`,
			},
		},
		{
			name:   "numeric formats",
			schema: `{type: object, properties: {i: {type: integer, format: int32}, f: {type: number, format: float}, j: {type: integer, format: int64}, g: {type: number, format: double}}}`,
			obj:    `{"i": 2147483648, "f": 1e39, "j": 9223372036854775807, "g": 1e300}`,
			want: []string{
				`f: Invalid value: 1e+39: Checked value must be of type number with format float in f`,
				`i: Invalid value: 2147483648: Checked value must be of type integer with format int32 in i`,
			},
		},
		{
			name:   "type errors name the format",
			schema: `{type: object, properties: {i: {type: integer, format: int32}, d: {type: string, format: date}, x: {type: string, format: unknown}}}`,
			obj:    `{"i": 1.5, "d": 5, "x": 5}`,
			want: []string{
				`d: Invalid value: "int64": d in body must be of type date: "int64"`,
				`i: Invalid value: "float64": i in body must be of type int32: "float64"`,
				`x: Invalid value: "integer": x in body must be of type string: "integer"`,
			},
		},
		{
			name: "string formats",
			schema: `
type: object
properties:
  date: {type: string, format: date}
  dt: {type: string, format: date-time}
  dur: {type: string, format: duration}
  uuid: {type: string, format: uuid}
  email: {type: string, format: email}
  host: {type: string, format: hostname}
  ip4: {type: string, format: ipv4}
  ip6: {type: string, format: ipv6}
  cidr: {type: string, format: cidr}
  mac: {type: string, format: mac}
  uri: {type: string, format: uri}
  byte: {type: string, format: byte}
  short: {type: string, format: k8s-short-name}
  long: {type: string, format: k8s-long-name}
  hex: {type: string, format: hexcolor}
  other: {type: string, format: something-else}`,
			obj: `{"date": "2024-02-30", "dt": "2024-01-01 10:00", "dur": "5 parsecs", "uuid": "123", "email": "nope",
			       "host": "-bad-", "ip4": "1.2.3", "ip6": "1.2.3.4", "cidr": "10.0.0.0/33", "mac": "00:11",
			       "uri": "relative/path", "byte": "abc", "short": "Upper", "long": "a..b", "hex": "#GGG", "other": "anything"}`,
			want: []string{
				`byte: Invalid value: "abc": byte in body must be of type byte: "abc"`,
				`cidr: Invalid value: "10.0.0.0/33": cidr in body must be of type cidr: "10.0.0.0/33"`,
				`date: Invalid value: "2024-02-30": date in body must be of type date: "2024-02-30"`,
				`dt: Invalid value: "2024-01-01 10:00": dt in body must be of type date-time: "2024-01-01 10:00"`,
				`dur: Invalid value: "5 parsecs": dur in body must be of type duration: "5 parsecs"`,
				`email: Invalid value: "nope": email in body must be of type email: "nope"`,
				`hex: Invalid value: "#GGG": hex in body must be of type hexcolor: "#GGG"`,
				`host: Invalid value: "-bad-": host in body must be of type hostname: "-bad-"`,
				`ip4: Invalid value: "1.2.3": ip4 in body must be of type ipv4: "1.2.3"`,
				`ip6: Invalid value: "1.2.3.4": ip6 in body must be of type ipv6: "1.2.3.4"`,
				`long: Invalid value: "a..b": long in body must be of type k8s-long-name: "a..b"`,
				`mac: Invalid value: "00:11": mac in body must be of type mac: "00:11"`,
				`short: Invalid value: "Upper": short in body must be of type k8s-short-name: "Upper"`,
				`uri: Invalid value: "relative/path": uri in body must be of type uri: "relative/path"`,
				`uuid: Invalid value: "123": uuid in body must be of type uuid: "123"`,
			},
		},
		{
			name: "valid string formats",
			schema: `
type: object
properties:
  date: {type: string, format: date}
  dt: {type: string, format: date-time}
  dur: {type: string, format: duration}
  uuid: {type: string, format: uuid}
  email: {type: string, format: email}
  host: {type: string, format: hostname}
  ip4: {type: string, format: ipv4}
  ip6: {type: string, format: ipv6}
  cidr: {type: string, format: cidr}
  mac: {type: string, format: mac}
  uri: {type: string, format: uri}
  byte: {type: string, format: byte}
  pw: {type: string, format: password}`,
			obj: `{"date": "2024-02-29", "dt": "2024-01-01T10:00:00Z", "dur": "1h30m", "uuid": "123e4567-e89b-12d3-a456-426614174000",
			       "email": "a@example.com", "host": "example.com", "ip4": "10.0.0.1", "ip6": "::1", "cidr": "10.0.0.0/8",
			       "mac": "00:11:22:33:44:55", "uri": "https://example.com/x", "byte": "aGVsbG8=", "pw": ""}`,
		},
		{
			name:   "required",
			schema: `{type: object, properties: {spec: {type: object, required: [name, size], properties: {name: {type: string}, size: {type: integer}}}}, required: [spec]}`,
			obj:    `{"spec": {"size": null}}`,
			want: []string{
				`spec.name: Required value`,
				`spec.size: Invalid value: "null": spec.size in body must be of type integer: "null"`,
			},
		},
		{
			name:   "required at the root",
			schema: `{type: object, properties: {spec: {type: object}}, required: [spec]}`,
			obj:    `{}`,
			want:   []string{`spec: Required value`},
		},
		{
			name:   "items and array bounds",
			schema: `{type: object, properties: {a: {type: array, minItems: 2, maxItems: 3, items: {type: integer, minimum: 0}}, b: {type: array, maxItems: 1, items: {type: integer}}}}`,
			obj:    `{"a": [-1], "b": [1, 2, 3]}`,
			want: []string{
				`a: Invalid value: 1: a in body should have at least 2 items`,
				`a[0]: Invalid value: -1: a[0] in body should be greater than or equal to 0`,
				`b: Too many: 3: must have at most 1 item`,
			},
		},
		{
			name:   "uniqueItems",
			schema: `{type: object, properties: {a: {type: array, uniqueItems: true, items: {x-kubernetes-preserve-unknown-fields: true}}, b: {type: array, uniqueItems: true, items: {type: integer}}}}`,
			opts:   options{allowUniqueItems: true},
			obj:    `{"a": [{"x": 1}, {"x": 1.0}], "b": [1, 2, 3]}`,
			want:   []string{`a: Invalid value: "": a in body shouldn't contain duplicates`},
		},
		{
			name:   "properties bounds",
			schema: `{type: object, properties: {m: {type: object, minProperties: 2, additionalProperties: {type: string}}, mm: {type: object, maxProperties: 1, additionalProperties: {type: string}}}}`,
			obj:    `{"m": {"a": "x"}, "mm": {"a": "x", "b": "z"}}`,
			want: []string{
				`m: Invalid value: 1: m in body should have at least 2 properties`,
				`mm: Too many: 2: must have at most 1 item`,
			},
		},
		{
			name:   "additionalProperties schema",
			schema: `{type: object, properties: {labels: {type: object, additionalProperties: {type: string, maxLength: 3}}}}`,
			obj:    `{"labels": {"a": "ok", "b": 1, "c.d": "long!"}}`,
			want: []string{
				`labels.b: Invalid value: "integer": labels.b in body must be of type string: "integer"`,
				`labels.c.d: Too long: may not be more than 3 bytes`,
			},
		},
		{
			name:   "additionalProperties false",
			schema: `{type: object, properties: {empty: {type: object, additionalProperties: false}}}`,
			obj:    `{"empty": {"b": 1, "a": 2}}`,
			want: []string{
				`empty: Invalid value: "a": empty.a in body is a forbidden property`,
				`empty: Invalid value: "b": empty.b in body is a forbidden property`,
			},
		},
		{
			name:   "int-or-string",
			schema: `{type: object, properties: {a: {x-kubernetes-int-or-string: true}, b: {x-kubernetes-int-or-string: true}, c: {x-kubernetes-int-or-string: true}, d: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}], pattern: "^[0-9]+%$"}}}`,
			obj:    `{"a": 1, "b": "50%", "c": 1.5, "d": "x"}`,
			want: []string{
				`c: Invalid value: "number": c in body must be of type integer,string: "number"`,
				`d: Invalid value: "x": d in body should match '^[0-9]+%$'`,
			},
		},
		{
			name: "list-type set",
			schema: `
type: object
properties:
  tags: {type: array, x-kubernetes-list-type: set, items: {type: string}}
  nums: {type: array, x-kubernetes-list-type: set, items: {type: number}}`,
			obj: `{"tags": ["a", "b", "a", "a", "b"], "nums": [1, 1.0, 2]}`,
			want: []string{
				`nums[1]: Duplicate value: 1`,
				`tags[2]: Duplicate value: "a"`,
				`tags[4]: Duplicate value: "b"`,
			},
		},
		{
			name: "list-type map",
			schema: `
type: object
properties:
  ports:
    type: array
    x-kubernetes-list-type: map
    x-kubernetes-list-map-keys: [name, proto]
    items:
      type: object
      required: [name]
      properties:
        name: {type: string}
        proto: {type: string, default: TCP}
        port: {type: integer}`,
			obj: `{"ports": [{"name": "a", "proto": "TCP", "port": 1}, {"name": "a", "proto": "UDP"}, {"name": "a", "proto": "TCP", "port": 2}, {"proto": "TCP"}, {"name": "b"}]}`,
			want: []string{
				`ports[2]: Duplicate value: {"name":"a","proto":"TCP"}`,
				`ports[3].name: Required value`,
				`ports[4].proto: Required value`,
			},
		},
		{
			name: "list-type map with non-objects",
			schema: `
type: object
properties:
  l:
    type: array
    x-kubernetes-list-type: map
    x-kubernetes-list-map-keys: [k]
    items: {type: object, required: [k], properties: {k: {type: string}}}`,
			obj: `{"l": [{"k": "a"}, "x"]}`,
			want: []string{
				`l[1]: Invalid value: "string": l[1] in body must be of type object: "string"`,
				`l[1]: Invalid value: "x": must be an object for an array of list-type map`,
			},
		},
		{
			name:   "allOf",
			schema: `{type: object, properties: {a: {type: string, allOf: [{minLength: 2}, {maxLength: 3}]}, b: {type: string, allOf: [{minLength: 5}, {pattern: "^x"}]}}}`,
			obj:    `{"a": "abcd", "b": "ab"}`,
			want: []string{
				// As in kube, allOf reports the failures, then the summary.
				`a: Too long: may not be more than 3 bytes`,
				`a: Invalid value: "": "a" must validate all the schemas (allOf)`,
				`b: Invalid value: "ab": b in body should be at least 5 chars long`,
				`b: Invalid value: "ab": b in body should match '^x'`,
				`b: Invalid value: "": "b" must validate all the schemas (allOf). None validated`,
			},
		},
		{
			name:   "anyOf",
			schema: `{type: object, properties: {a: {type: string, anyOf: [{pattern: "^x"}, {minLength: 5, pattern: "^y"}]}, ok: {type: string, anyOf: [{pattern: "^x"}, {pattern: "^y"}]}}}`,
			obj:    `{"a": "abc", "ok": "yes"}`,
			want: []string{
				`a: Invalid value: "": "a" must validate at least one schema (anyOf)`,
				`a: Invalid value: "abc": a in body should match '^x'`,
			},
		},
		{
			name: "oneOf",
			schema: `
type: object
properties:
  spec:
    type: object
    properties: {a: {type: string}, b: {type: string}}
    oneOf: [{required: [a]}, {required: [b]}]
  more:
    type: object
    properties: {a: {type: string}, b: {type: string}}
    oneOf: [{required: [a]}, {required: [b]}]
  one:
    type: object
    properties: {a: {type: string}, b: {type: string}}
    oneOf: [{required: [a]}, {required: [b]}]`,
			obj: `{"spec": {}, "more": {"a": "x", "b": "y"}, "one": {"b": "y"}}`,
			want: []string{
				`more: Invalid value: "": "more" must validate one and only one schema (oneOf). Found 2 valid alternatives`,
				`spec: Invalid value: "": "spec" must validate one and only one schema (oneOf). Found none valid`,
				`spec.a: Required value`,
			},
		},
		{
			name:   "not",
			schema: `{type: object, properties: {a: {type: string, not: {enum: [forbidden]}}}}`,
			obj:    `{"a": "forbidden"}`,
			want:   []string{`a: Invalid value: "": "a" must not validate the schema (not)`},
		},
		{
			name:   "junctor properties",
			schema: `{type: object, properties: {spec: {type: object, properties: {a: {type: integer}}}}, allOf: [{properties: {spec: {properties: {a: {maximum: 3}}}}}]}`,
			obj:    `{"spec": {"a": 4}}`,
			want: []string{
				`<nil>: Invalid value: "": "" must validate all the schemas (allOf). None validated`,
				`spec.a: Invalid value: 4: spec.a in body should be less than or equal to 3`,
			},
		},
		{
			name: "embedded resources",
			schema: `
type: object
properties:
  t:
    type: object
    x-kubernetes-embedded-resource: true
    x-kubernetes-preserve-unknown-fields: true
  u:
    type: object
    x-kubernetes-embedded-resource: true
    x-kubernetes-preserve-unknown-fields: true
  ok:
    type: object
    x-kubernetes-embedded-resource: true
    x-kubernetes-preserve-unknown-fields: true`,
			obj: `{"t": {"metadata": {"name": "a/b"}}, "u": {"apiVersion": "a/b/c", "kind": "no way", "metadata": "x"},
			       "ok": {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": {"a": "b"}}}}`,
			want: []string{
				`t.apiVersion: Required value`,
				`t.kind: Required value`,
				`t.metadata.name: Invalid value: "a/b": may not contain '/'`,
				`u.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c`,
				`u.kind: Invalid value: "no way": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
				`u.metadata: Invalid value: "x": must be an object`,
			},
		},
		{
			name:   "root metadata name restrictions",
			schema: `{type: object, properties: {metadata: {type: object, properties: {name: {type: string, maxLength: 5}}}}}`,
			obj:    `{"apiVersion": "x/v1", "kind": "K", "metadata": {"name": "toolong", "labels": {"a": "b"}}}`,
			want:   []string{`metadata.name: Too long: may not be more than 5 bytes`},
		},
		{
			name:   "root is not checked as an embedded resource",
			schema: `{type: object, x-kubernetes-preserve-unknown-fields: true}`,
			obj:    `{}`,
		},
		{
			name:   "preserve-unknown-fields accepts anything but still checks known fields",
			schema: `{type: object, x-kubernetes-preserve-unknown-fields: true, properties: {a: {type: string}}}`,
			obj:    `{"a": 1, "b": {"c": [1, "x"]}}`,
			want:   []string{`a: Invalid value: "integer": a in body must be of type string: "integer"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustNewOpts(t, tt.schema, tt.opts)
			got := s.Validate(parseObject(t, tt.obj))
			diffStrings(t, "errors", errorStrings(got), tt.want)
		})
	}
}

func enumList(n int) string {
	var b []string
	for i := 1; i <= n; i++ {
		b = append(b, fmt.Sprintf("v%d", i))
	}
	return strings.Join(b, ", ")
}

func quotedEnumList(n int) string {
	var b []string
	for i := 1; i <= n; i++ {
		b = append(b, fmt.Sprintf("%q", fmt.Sprintf("v%d", i)))
	}
	return strings.Join(b, ", ")
}

func TestValidateErrorTypes(t *testing.T) {
	s := mustNew(t, `
type: object
required: [r]
properties:
  r: {type: string}
  t: {type: string}
  e: {type: string, enum: [a]}
  l: {type: string, maxLength: 1}
  m: {type: array, maxItems: 0, items: {type: string}}
  s: {type: array, x-kubernetes-list-type: set, items: {type: string}}
  i: {type: integer, maximum: 1}`)
	errs := s.Validate(parseObject(t, `{"t": 1, "e": "b", "l": "xx", "m": ["a"], "s": ["a", "a"], "i": 2}`))
	want := map[string]field.ErrorType{
		"r":    field.ErrorTypeRequired,
		"t":    field.ErrorTypeTypeInvalid,
		"e":    field.ErrorTypeNotSupported,
		"l":    field.ErrorTypeTooLong,
		"m":    field.ErrorTypeTooMany,
		"s[1]": field.ErrorTypeDuplicate,
		"i":    field.ErrorTypeInvalid,
	}
	if len(errs) != len(want) {
		t.Fatalf("got %d errors, want %d: %v", len(errs), len(want), errs)
	}
	for _, e := range errs {
		if want[e.Field] != e.Type {
			t.Errorf("%s: type %s, want %s", e.Field, e.Type, want[e.Field])
		}
	}
}

func TestValidateLongLists(t *testing.T) {
	s := mustNew(t, `
type: object
properties:
  set: {type: array, x-kubernetes-list-type: set, items: {x-kubernetes-preserve-unknown-fields: true}}
  map:
    type: array
    x-kubernetes-list-type: map
    x-kubernetes-list-map-keys: [k]
    items: {type: object, required: [k], properties: {k: {type: integer}}}`)
	var set, m []string
	for i := 0; i < 100; i++ {
		set = append(set, fmt.Sprintf(`{"v": %d}`, i%60))
		m = append(m, fmt.Sprintf(`{"k": %d}`, i%70))
	}
	errs := s.Validate(parseObject(t, fmt.Sprintf(`{"set": [%s], "map": [%s]}`, strings.Join(set, ","), strings.Join(m, ","))))
	var dups int
	for _, e := range errs {
		if e.Type != field.ErrorTypeDuplicate {
			t.Errorf("unexpected error %v", e)
		}
		dups++
	}
	if dups != 40+30 {
		t.Errorf("got %d duplicates, want 70: %v", dups, errs)
	}
}

func TestValidateDoesNotModify(t *testing.T) {
	s := mustNew(t, `{type: object, properties: {a: {type: string, default: x}}}`)
	obj := parseObject(t, `{"b": 1}`)
	s.Validate(obj)
	if len(obj) != 1 {
		t.Errorf("Validate changed the object: %v", obj)
	}
}

// TestConcurrentUse runs the hot paths of one schema from several
// goroutines, for the race detector.
func TestConcurrentUse(t *testing.T) {
	s := mustNew(t, richSchema)
	var objects []map[string]any
	for _, o := range fuzzObjects {
		objects = append(objects, parseObject(t, o))
	}
	done := make(chan struct{})
	for g := 0; g < 4; g++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := 0; i < 50; i++ {
				for _, o := range objects {
					obj := deepCopy(o).(map[string]any)
					s.Prune(obj)
					s.Default(obj)
					s.Validate(obj)
				}
			}
		}()
	}
	for g := 0; g < 4; g++ {
		<-done
	}
}
