package cel

import (
	"testing"
)

const p = "spec.versions[0].schema.openAPIV3Schema"

// spec wraps properties of .spec and rules on .spec into a CRD schema.
func spec(props, rules string) string {
	s := `{"type":"object","properties":{"spec":{"type":"object","properties":{` + props + `}`
	if rules != "" {
		s += `,"x-kubernetes-validations":[` + rules + `]`
	}
	return s + `}}}`
}

func TestCompile(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   []string
		nilV   bool // want a nil Validator
	}{{
		name:   "no rules",
		schema: spec(`"a":{"type":"string"}`, ""),
		nilV:   true,
	}, {
		name:   "valid rules everywhere",
		schema: spec(`"replicas":{"type":"integer"},"name":{"type":"string"},"labels":{"type":"object","additionalProperties":{"type":"string","x-kubernetes-validations":[{"rule":"self != ''"}]}},"items":{"type":"array","items":{"type":"integer","x-kubernetes-validations":[{"rule":"self >= 0"}]}}`, `{"rule":"self.replicas >= 0 && has(self.name) && self.labels.all(k, k != '')"}`),
	}, {
		name:   "undefined field",
		schema: spec(`"replicas":{"type":"integer"}`, `{"rule":"self.replicaz > 0"}`),
		want:   []string{"Invalid value " + p + ".properties[spec].x-kubernetes-validations[0].rule: compilation failed: ERROR: <input>:1:5: undefined field 'replicaz'..."},
	}, {
		name:   "type error",
		schema: spec(`"replicas":{"type":"integer"}`, `{"rule":"self.replicas == 'three'"}`),
		want:   []string{"Invalid value " + p + ".properties[spec].x-kubernetes-validations[0].rule: compilation failed: ERROR: <input>:1:15: found no matching overload for '_==_' applied to '(int, string)'..."},
	}, {
		name:   "syntax error",
		schema: spec(`"replicas":{"type":"integer"}`, `{"rule":"self.replicas >"}`),
		want:   []string{"Invalid value " + p + ".properties[spec].x-kubernetes-validations[0].rule: compilation failed: ERROR: <input>:1:16: Syntax error..."},
	}, {
		name:   "not a bool",
		schema: spec(`"replicas":{"type":"integer"}`, `{"rule":"self.replicas"}`),
		want:   []string{"Invalid value " + p + ".properties[spec].x-kubernetes-validations[0].rule: cel expression must evaluate to a bool"},
	}, {
		name:   "messageExpression not a string",
		schema: spec(`"replicas":{"type":"integer"}`, `{"rule":"self.replicas > 0","messageExpression":"self.replicas"}`),
		want:   []string{"Invalid value " + p + ".properties[spec].x-kubernetes-validations[0].messageExpression: messageExpression must evaluate to a string"},
	}, {
		name:   "messageExpression does not compile",
		schema: spec(`"replicas":{"type":"integer"}`, `{"rule":"self.replicas > 0","messageExpression":"'n=' + self.nope"}`),
		want:   []string{"Invalid value " + p + ".properties[spec].x-kubernetes-validations[0].messageExpression: messageExpression compilation failed: ERROR: <input>:1:12: undefined field 'nope'..."},
	}, {
		// cel-go gives string(int) no size bound, so kube refuses this too
		name:   "messageExpression with an unbounded result",
		schema: spec(`"replicas":{"type":"integer"}`, `{"rule":"self.replicas > 0","messageExpression":"'replicas: ' + string(self.replicas)"}`),
		want: []string{
			"Forbidden " + p + ".properties[spec].x-kubernetes-validations[0].messageExpression: estimated messageExpression cost exceeds budget by factor of more than 100x...",
			"Forbidden " + p + ".properties[spec].x-kubernetes-validations[0].messageExpression: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
			"Forbidden " + p + ": x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x...",
		},
	}, {
		name:   "declaration errors",
		schema: spec(`"a":{"type":"string"}`, `{"rule":"  "},{"rule":"self.a\n== 'x'"},{"rule":"true","message":"  "},{"rule":"true","reason":"FieldValueBad"},{"rule":"true","fieldPath":".b"},{"rule":"true","messageExpression":" "}`),
		want: []string{
			"Required value " + p + ".properties[spec].x-kubernetes-validations[0].rule: rule is not specified",
			"Required value " + p + ".properties[spec].x-kubernetes-validations[1].message: message must be specified if rule contains line breaks",
			"Invalid value " + p + ".properties[spec].x-kubernetes-validations[2].message: must be non-empty if specified",
			`Unsupported value ` + p + `.properties[spec].x-kubernetes-validations[3].reason: supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`,
			"Invalid value " + p + ".properties[spec].x-kubernetes-validations[4].fieldPath: must be a valid path",
			"Required value " + p + ".properties[spec].x-kubernetes-validations[5].messageExpression: messageExpression must be non-empty if specified",
		},
	}, {
		name:   "valid fieldPaths",
		schema: spec(`"a":{"type":"object","properties":{"b.c":{"type":"string"}}},"m":{"type":"object","additionalProperties":{"type":"string"}}`, `{"rule":"true","fieldPath":".a['b.c']"},{"rule":"true","fieldPath":".m.anykey"},{"rule":"true","fieldPath":".m['x']"}`),
	}, {
		name:   "optionalOldSelf without oldSelf",
		schema: spec(`"a":{"type":"string"}`, `{"rule":"self.a != ''","optionalOldSelf":true}`),
		want:   []string{"Invalid value " + p + ".properties[spec].x-kubernetes-validations[0].optionalOldSelf: may not be set if oldSelf is not used in rule"},
	}, {
		name:   "oldSelf below an atomic list",
		schema: spec(`"items":{"type":"array","maxItems":10,"items":{"type":"string","x-kubernetes-validations":[{"rule":"self == oldSelf"}]}}`, ""),
		want:   []string{"Invalid value " + p + ".properties[spec].properties[items].items.x-kubernetes-validations[0].rule: oldSelf cannot be used on the uncorrelatable portion of the schema within " + p + ".properties[spec].properties[items]"},
	}, {
		name:   "oldSelf below a map list",
		schema: spec(`"items":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"v":{"type":"integer"}},"x-kubernetes-validations":[{"rule":"self.v >= oldSelf.v"}]}}`, ""),
	}, {
		name:   "oldSelf in map values",
		schema: spec(`"m":{"type":"object","additionalProperties":{"type":"integer","x-kubernetes-validations":[{"rule":"self >= oldSelf"}]}}`, ""),
	}, {
		name:   "resource root exposes apiVersion, kind and metadata.name only",
		schema: `{"type":"object","x-kubernetes-validations":[{"rule":"self.kind == 'Foo' && self.apiVersion != '' && self.metadata.name.startsWith('a') && !has(self.metadata.generateName)"},{"rule":"has(self.metadata.labels)"}],"properties":{"metadata":{"type":"object"}}}`,
		want:   []string{"Invalid value " + p + ".x-kubernetes-validations[1].rule: compilation failed: ERROR: <input>:1:4: undefined field 'labels'..."},
	}, {
		name:   "embedded resource",
		schema: spec(`"template":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true,"x-kubernetes-validations":[{"rule":"self.kind == 'Pod' && self.metadata.name != ''"}]}`, ""),
	}, {
		name:   "preserved unknown fields are not visible",
		schema: spec(`"raw":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"x-kubernetes-validations":[{"rule":"has(self.anything)"}]}`, ""),
		want:   []string{"Invalid value " + p + ".properties[spec].properties[raw].x-kubernetes-validations[0].rule: compilation failed: ERROR: <input>:1:4: undefined field 'anything'..."},
	}, {
		name:   "rules on a node rules cannot see",
		schema: spec(`"raw":{"x-kubernetes-preserve-unknown-fields":true,"x-kubernetes-validations":[{"rule":"true"}]}`, ""),
		want:   []string{"Internal error " + p + ".properties[spec].properties[raw].x-kubernetes-validations: internal error: failed to construct type information for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations"},
	}, {
		name:   "escaped property names",
		schema: spec(`"x-y":{"type":"string"},"a.b":{"type":"string"},"namespace":{"type":"string"},"__z":{"type":"string"}`, `{"rule":"self.x__dash__y == self.a__dot__b && self.__namespace__ == '' && self.namespace == '' && self.__underscores__z == ''"}`),
	}, {
		name:   "int-or-string is dyn",
		schema: spec(`"port":{"x-kubernetes-int-or-string":true}`, `{"rule":"type(self.port) == int ? self.port > 0 : self.port.matches('^[a-z]+$')"}`),
	}, {
		name:   "formats",
		schema: spec(`"at":{"type":"string","format":"date-time"},"d":{"type":"string","format":"duration"},"b":{"type":"string","format":"byte"},"day":{"type":"string","format":"date"}`, `{"rule":"self.at > timestamp('2020-01-01T00:00:00Z') && self.d < duration('1h') && size(self.b) < 10 && self.day.getFullYear() > 2000"}`),
	}, {
		name: "libraries",
		schema: spec(`"l":{"type":"array","maxItems":10,"items":{"type":"integer"}},"s":{"type":"array","maxItems":10,"items":{"type":"string","maxLength":10}},"n":{"type":"string","maxLength":20}`,
			`{"rule":"self.l.isSorted() && self.l.sum() < 100 && self.l.min() >= 0 && self.l.max() < 50 && self.l.indexOf(3) >= -1 && self.l.lastIndexOf(3) >= -1"},`+
				`{"rule":"self.n.find('[0-9]+') != 'x' && self.n.findAll('[a-z]').size() < 30 && self.n.findAll('[a-z]', 2).size() <= 2"},`+
				`{"rule":"self.n.lowerAscii().upperAscii().trim().replace('a', 'b').split(',').size() > 0 && self.s.join(',').size() >= 0 && self.n.indexOf('x') >= -1"},`+
				`{"rule":"sets.contains(self.l, [1]) || self.l.all(i, v, i >= 0) || self.l.distinct().size() > 0"},`+
				`{"rule":"self.?n.orValue('') != 'zz' && optional.of(1).hasValue()"}`),
	}, {
		name:   "invalid regex literal",
		schema: spec(`"n":{"type":"string","maxLength":20}`, `{"rule":"self.n.matches('[')"}`),
		want:   []string{"Invalid value " + p + ".properties[spec].x-kubernetes-validations[0].rule: compilation failed: ERROR: <input>:1:16: invalid matches argument..."},
	}, {
		name:   "invalid find regex",
		schema: spec(`"n":{"type":"string","maxLength":20}`, `{"rule":"self.n.find('[') == ''"}`),
		want:   []string{"Invalid value " + p + ".properties[spec].x-kubernetes-validations[0].rule: program instantiation failed: ..."},
	}, {
		name:   "nested all over unbounded lists is too expensive",
		schema: spec(`"l":{"type":"array","items":{"type":"string"}}`, `{"rule":"self.l.all(x, self.l.all(y, x == y))"}`),
		want: []string{
			"Forbidden " + p + ".properties[spec].x-kubernetes-validations[0].rule: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
			"Forbidden " + p + ".properties[spec].x-kubernetes-validations[0].rule: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
			"Forbidden " + p + ": x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x...",
		},
	}, {
		name:   "bounded lists make the same rule cheap enough",
		schema: spec(`"l":{"type":"array","maxItems":100,"items":{"type":"string","maxLength":64}}`, `{"rule":"self.l.all(x, self.l.all(y, x == y))"}`),
	}, {
		name:   "a rule under unbounded lists runs once per possible element",
		schema: spec(`"l":{"type":"array","items":{"type":"object","properties":{"s":{"type":"string"}},"x-kubernetes-validations":[{"rule":"self.s.matches('^[a-z]+$')"}]}}`, ""),
		want: []string{
			"Forbidden " + p + ".properties[spec].properties[l].items.x-kubernetes-validations[0].rule: estimated rule cost exceeds budget by factor of more than 100x...",
			"Forbidden " + p + ".properties[spec].properties[l].items.x-kubernetes-validations[0].rule: contributed to estimated rule cost total...",
			"Forbidden " + p + ": x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget...",
		},
	}, {
		name: "the total of rules each within limits can be too much",
		schema: spec(`"l":{"type":"array","maxItems":1000,"items":{"type":"integer"}}`,
			`{"rule":"self.l.all(x, self.l.all(y, x <= y || x > y))"},{"rule":"self.l.all(x, self.l.all(y, x <= y || x > y))"},{"rule":"self.l.all(x, self.l.all(y, x <= y || x > y))"},`+
				`{"rule":"self.l.all(x, self.l.all(y, x <= y || x > y))"},{"rule":"self.l.all(x, self.l.all(y, x <= y || x > y))"},{"rule":"self.l.all(x, self.l.all(y, x <= y || x > y))"},`+
				`{"rule":"self.l.all(x, self.l.all(y, x <= y || x > y))"},{"rule":"self.l.all(x, self.l.all(y, x <= y || x > y))"},{"rule":"self.l.all(x, self.l.all(y, x <= y || x > y))"},`+
				`{"rule":"self.l.all(x, self.l.all(y, x <= y || x > y))"},{"rule":"self.l.all(x, self.l.all(y, x <= y || x > y))"},{"rule":"self.l.all(x, self.l.all(y, x <= y || x > y))"}`),
		want: []string{
			"Forbidden " + p + ".properties[spec].x-kubernetes-validations[0].rule: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
			"Forbidden " + p + ".properties[spec].x-kubernetes-validations[1].rule: contributed...",
			"Forbidden " + p + ".properties[spec].x-kubernetes-validations[2].rule: contributed...",
			"Forbidden " + p + ".properties[spec].x-kubernetes-validations[3].rule: contributed...",
			"Forbidden " + p + ": x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of 1.08...",
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, errs := Compile(schema(t, tc.schema), rootPath)
			matchErrors(t, errs, tc.want)
			if (v == nil) != tc.nilV {
				t.Errorf("validator = %v, want nil: %v", v, tc.nilV)
			}
		})
	}
}
