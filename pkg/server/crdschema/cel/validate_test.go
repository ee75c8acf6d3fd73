package cel

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestValidate(t *testing.T) {
	mapList := `"items":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"maxItems":10,` +
		`"items":{"type":"object","required":["name"],"properties":{"name":{"type":"string","maxLength":10},"v":{"type":"integer"}},` +
		`"x-kubernetes-validations":[{"rule":"self.v >= oldSelf.v","message":"v may not decrease"}]}}`
	tests := []struct {
		name     string
		schema   string
		obj, old string
		want     []string
	}{{
		name:   "passing rule",
		schema: spec(`"replicas":{"type":"integer"},"max":{"type":"integer"}`, `{"rule":"self.replicas <= self.max"}`),
		obj:    `{"spec":{"replicas":1,"max":3}}`,
	}, {
		name:   "failing rule, default message",
		schema: spec(`"replicas":{"type":"integer"},"max":{"type":"integer"}`, `{"rule":"self.replicas <= self.max"}`),
		obj:    `{"spec":{"replicas":5,"max":3}}`,
		want:   []string{"Invalid value spec: failed rule: self.replicas <= self.max"},
	}, {
		name:   "message",
		schema: spec(`"replicas":{"type":"integer"}`, `{"rule":"self.replicas < 3","message":" too many replicas "}`),
		obj:    `{"spec":{"replicas":5}}`,
		want:   []string{"Invalid value spec: too many replicas"},
	}, {
		name:   "messageExpression",
		schema: spec(`"replicas":{"type":"integer"},"name":{"type":"string","maxLength":20}`, `{"rule":"self.replicas < 3","message":"static","messageExpression":"self.name + ' has too many replicas'"}`),
		obj:    `{"spec":{"replicas":5,"name":"web"}}`,
		want:   []string{"Invalid value spec: web has too many replicas"},
	}, {
		name:   "messageExpression failing falls back to message",
		schema: spec(`"replicas":{"type":"integer"},"name":{"type":"string"}`, `{"rule":"self.replicas < 3","message":"static","messageExpression":"self.name"},{"rule":"self.replicas < 3","messageExpression":"''"}`),
		obj:    `{"spec":{"replicas":5}}`,
		want:   []string{"Invalid value spec: static", "Invalid value spec: failed rule: self.replicas < 3"},
	}, {
		name:   "reasons",
		schema: spec(`"a":{"type":"integer"}`, `{"rule":"false","reason":"FieldValueForbidden","message":"f"},{"rule":"false","reason":"FieldValueRequired","message":"r"},{"rule":"false","reason":"FieldValueDuplicate","message":"d"},{"rule":"false","reason":"FieldValueInvalid","message":"i"}`),
		obj:    `{"spec":{"a":1}}`,
		want:   []string{"Forbidden spec: f", "Required value spec: r", "Duplicate value spec: ", "Invalid value spec: i"},
	}, {
		name:   "fieldPath",
		schema: spec(`"a":{"type":"object","properties":{"b.c":{"type":"string"}}},"m":{"type":"object","additionalProperties":{"type":"string"}}`, `{"rule":"false","fieldPath":".a['b.c']"},{"rule":"false","fieldPath":".m['x']"}`),
		obj:    `{"spec":{"a":{}}}`,
		want:   []string{"Invalid value spec.a.b.c: failed rule: false", "Invalid value spec.m[x]: failed rule: false"},
	}, {
		name:   "root rule has a nil path",
		schema: `{"type":"object","x-kubernetes-validations":[{"rule":"self.metadata.name.startsWith('a')"}]}`,
		obj:    `{"apiVersion":"x/v1","kind":"Foo","metadata":{"name":"bob"}}`,
		want:   []string{"Invalid value <nil>: failed rule: self.metadata.name.startsWith('a')"},
	}, {
		name:   "rules on list items",
		schema: spec(`"l":{"type":"array","items":{"type":"integer","x-kubernetes-validations":[{"rule":"self % 2 == 0"}]}}`, ""),
		obj:    `{"spec":{"l":[2,4,5,6,7]}}`,
		want:   []string{"Invalid value spec.l[2]: failed rule: self % 2 == 0", "Invalid value spec.l[4]: failed rule: self % 2 == 0"},
	}, {
		name:   "rules on map values",
		schema: spec(`"labels":{"type":"object","additionalProperties":{"type":"string","x-kubernetes-validations":[{"rule":"self.size() <= 3"}]}}`, ""),
		obj:    `{"spec":{"labels":{"b":"long value","a":"ok","c":"too long"}}}`,
		want:   []string{"Invalid value spec.labels[b]: failed rule: self.size() <= 3", "Invalid value spec.labels[c]: failed rule: self.size() <= 3"},
	}, {
		name:   "transition rule skipped on create",
		schema: spec(`"v":{"type":"integer"}`, `{"rule":"self.v >= oldSelf.v"}`),
		obj:    `{"spec":{"v":1}}`,
	}, {
		name:   "transition rule on update",
		schema: spec(`"v":{"type":"string","maxLength":5}`, `{"rule":"self.v >= oldSelf.v","messageExpression":"'v went from ' + oldSelf.v + ' to ' + self.v"}`),
		obj:    `{"spec":{"v":"a"}}`,
		old:    `{"spec":{"v":"b"}}`,
		want:   []string{"Invalid value spec: v went from b to a"},
	}, {
		name:   "transition rule skipped when the node is new",
		schema: spec(`"v":{"type":"integer"}`, `{"rule":"self.v >= oldSelf.v"}`),
		obj:    `{"spec":{"v":1}}`,
		old:    `{"metadata":{"name":"x"}}`,
	}, {
		name:   "immutable field",
		schema: spec(`"id":{"type":"string","x-kubernetes-validations":[{"rule":"self == oldSelf","message":"id is immutable"}]}`, ""),
		obj:    `{"spec":{"id":"b"}}`,
		old:    `{"spec":{"id":"a"}}`,
		want:   []string{`Invalid value spec.id: id is immutable`},
	}, {
		name:   "optionalOldSelf evaluated on create",
		schema: spec(`"v":{"type":"integer"}`, `{"rule":"oldSelf.hasValue() ? self.v >= oldSelf.value().v : self.v == 0","optionalOldSelf":true,"message":"starts at 0, never decreases"}`),
		obj:    `{"spec":{"v":1}}`,
		want:   []string{"Invalid value spec: starts at 0, never decreases"},
	}, {
		name:   "optionalOldSelf on update",
		schema: spec(`"v":{"type":"integer"}`, `{"rule":"oldSelf.hasValue() ? self.v >= oldSelf.value().v : self.v == 0","optionalOldSelf":true,"messageExpression":"oldSelf.hasValue() ? 'decreased' : 'nonzero'"}`),
		obj:    `{"spec":{"v":1}}`,
		old:    `{"spec":{"v":3}}`,
		want:   []string{"Invalid value spec: decreased"},
	}, {
		name:   "map list items correlate by key",
		schema: spec(mapList, ""),
		obj:    `{"spec":{"items":[{"name":"new","v":0},{"name":"b","v":1},{"name":"a","v":5}]}}`,
		old:    `{"spec":{"items":[{"name":"a","v":4},{"name":"b","v":2}]}}`,
		want:   []string{"Invalid value spec.items[1]: v may not decrease"},
	}, {
		name:   "map values correlate by key",
		schema: spec(`"m":{"type":"object","additionalProperties":{"type":"integer","x-kubernetes-validations":[{"rule":"self >= oldSelf"}]}}`, ""),
		obj:    `{"spec":{"m":{"a":1,"b":1,"c":1}}}`,
		old:    `{"spec":{"m":{"a":2,"b":0}}}`,
		want:   []string{"Invalid value spec.m[a]: failed rule: self >= oldSelf"},
	}, {
		name:   "set equality ignores order",
		schema: spec(`"s":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}}`, `{"rule":"self.s == oldSelf.s","message":"s is immutable"}`),
		obj:    `{"spec":{"s":["b","a"]}}`,
		old:    `{"spec":{"s":["a","b"]}}`,
	}, {
		name:   "atomic list equality does not",
		schema: spec(`"s":{"type":"array","items":{"type":"string"}}`, `{"rule":"self.s == oldSelf.s","message":"s is immutable"}`),
		obj:    `{"spec":{"s":["b","a"]}}`,
		old:    `{"spec":{"s":["a","b"]}}`,
		want:   []string{"Invalid value spec: s is immutable"},
	}, {
		name:   "map list equality ignores order",
		schema: spec(`"l":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k"],"items":{"type":"object","properties":{"k":{"type":"string"},"v":{"type":"integer"}}}}`, `{"rule":"self.l == oldSelf.l","message":"changed"}`),
		obj:    `{"spec":{"l":[{"k":"b","v":2},{"k":"a","v":1}]}}`,
		old:    `{"spec":{"l":[{"k":"a","v":1},{"k":"b","v":2}]}}`,
	}, {
		name:   "object equality sees unknown fields",
		schema: spec(`"o":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"a":{"type":"integer"}}}`, `{"rule":"self.o == oldSelf.o","message":"changed"}`),
		obj:    `{"spec":{"o":{"a":1,"x":{"y":1}}}}`,
		old:    `{"spec":{"o":{"a":1,"x":{"y":2}}}}`,
		want:   []string{"Invalid value spec: changed"},
	}, {
		name:   "absent field is a runtime error",
		schema: spec(`"a":{"type":"string"}`, `{"rule":"self.a == 'x'"}`),
		obj:    `{"spec":{}}`,
		want:   []string{`Invalid value spec: no such key: a evaluating rule: self.a == 'x'`},
	}, {
		name:   "has on absent and null fields",
		schema: spec(`"a":{"type":"string","nullable":true}`, `{"rule":"!has(self.a)"}`),
		obj:    `{"spec":{"a":null}}`,
	}, {
		name:   "null values are not validated",
		schema: spec(`"a":{"type":"string","nullable":true,"x-kubernetes-validations":[{"rule":"self == 'x'"}]}`, ""),
		obj:    `{"spec":{"a":null}}`,
	}, {
		name:   "int-or-string overload error at runtime",
		schema: spec(`"port":{"x-kubernetes-int-or-string":true}`, `{"rule":"self.port > 0"}`),
		obj:    `{"spec":{"port":"http"}}`,
		want:   []string{`Invalid value spec: 'no such overload': call arguments did not match a supported operator, function or macro signature for rule: self.port > 0`},
	}, {
		name:   "int-or-string",
		schema: spec(`"port":{"x-kubernetes-int-or-string":true}`, `{"rule":"type(self.port) == int ? self.port > 0 : self.port.matches('^[a-z]+$')"}`),
		obj:    `{"spec":{"port":"HTTP"}}`,
		want:   []string{`Invalid value spec: failed rule: type(self.port) == int ? self.port > 0 : self.port.matches('^[a-z]+$')`},
	}, {
		name:   "whole numbers in number fields are doubles",
		schema: spec(`"ratio":{"type":"number"}`, `{"rule":"self.ratio < 1.0"}`),
		obj:    `{"spec":{"ratio":1}}`,
		want:   []string{`Invalid value spec: failed rule: self.ratio < 1.0`},
	}, {
		name:   "formats",
		schema: spec(`"at":{"type":"string","format":"date-time"},"d":{"type":"string","format":"duration"},"b":{"type":"string","format":"byte"},"day":{"type":"string","format":"date"}`, `{"rule":"self.at > timestamp('2020-01-01T00:00:00Z') && self.d < duration('1h') && self.b == b'hi' && self.day.getFullYear() == 2024"}`),
		obj:    `{"spec":{"at":"2021-05-01T10:00:00.5Z","d":"30m","b":"aGk=","day":"2024-02-29"}}`,
	}, {
		name:   "scalar value in error",
		schema: spec(`"n":{"type":"integer","x-kubernetes-validations":[{"rule":"self < 10"}]}`, ""),
		obj:    `{"spec":{"n":12}}`,
		want:   []string{`Invalid value spec.n: failed rule: self < 10`},
	}, {
		name: "libraries at runtime",
		schema: spec(`"l":{"type":"array","maxItems":10,"items":{"type":"integer"}},"n":{"type":"string","maxLength":20}`,
			`{"rule":"self.l.isSorted() && self.l.sum() == 10 && self.l.min() == 1 && self.l.max() == 4 && self.l.indexOf(3) == 2 && self.l.lastIndexOf(9) == -1"},`+
				`{"rule":"self.n.find('[0-9]+') == '123' && self.n.findAll('[a-z]') == ['a', 'b', 'c'] && self.n.findAll('[a-z]', 2) == ['a', 'b'] && self.n.find(self.n) == self.n"},`+
				`{"rule":"[3, 1].isSorted()","message":"not sorted"},{"rule":"self.l.filter(x, x > 5).max() > 0"}`),
		obj:  `{"spec":{"l":[1,2,3,4],"n":"abc123"}}`,
		want: []string{`Invalid value spec: not sorted`, `Invalid value spec: max called on empty list evaluating rule: self.l.filter(x, x > 5).max() > 0`},
	}, {
		name:   "data not matching the schema is an error, not a panic",
		schema: spec(`"a":{"type":"integer"},"l":{"type":"array","items":{"type":"string","x-kubernetes-validations":[{"rule":"self != ''"}]}}`, `{"rule":"self.a > 0"}`),
		obj:    `{"spec":{"a":"one","l":"notalist"}}`,
		want:   []string{`Invalid value spec: invalid data, expected int, got string evaluating rule: self.a > 0`},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, errs := Compile(schema(t, tc.schema), rootPath)
			if len(errs) > 0 {
				t.Fatalf("compile: %v", errs)
			}
			got := v.Validate(context.Background(), object(t, tc.obj), object(t, tc.old))
			matchErrors(t, got, tc.want)
		})
	}
}

// TestValidateValues checks the value each kind of error carries, which
// shows up in the 422 the server answers: the schema's type, as
// kube-apiserver 1.33 answers.
func TestValidateValues(t *testing.T) {
	v, errs := Compile(schema(t, spec(`"n":{"type":"integer","x-kubernetes-validations":[{"rule":"self < 10"}]},`+
		`"l":{"type":"array","items":{"type":"string"},"x-kubernetes-validations":[{"rule":"size(self) < 1","reason":"FieldValueDuplicate"}]}`,
		`{"rule":"self.n < 5"},{"rule":"self.n.nope()"}`)), rootPath)
	if len(errs) != 1 { // the second rule does not compile
		t.Fatalf("compile: %v", errs)
	}
	got := v.Validate(context.Background(), object(t, `{"spec":{"n":12,"l":["a"]}}`), nil)
	want := []string{
		`spec: Invalid value: "object": failed rule: self.n < 5`,
		`spec: Invalid value: "object": rule compile error: compilation failed: ERROR: <input>:1:12: undeclared reference to 'nope' (in container '')`,
		`spec.l: Duplicate value: "array"`,
		`spec.n: Invalid value: "integer": failed rule: self < 10`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if g := strings.SplitN(got[i].Error(), "\n", 2)[0]; g != want[i] {
			t.Errorf("error %d:\n got %s\nwant %s", i, g, want[i])
		}
	}
}

func TestValidateNil(t *testing.T) {
	var v *Validator
	if errs := v.Validate(context.Background(), map[string]any{"a": int64(1)}, nil); errs != nil {
		t.Errorf("nil validator: %v", errs)
	}
}

func TestValidateCancelled(t *testing.T) {
	v, errs := Compile(schema(t, spec(`"a":{"type":"integer"}`, `{"rule":"self.a > 0"}`)), rootPath)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got := v.Validate(ctx, object(t, `{"spec":{"a":1}}`), nil)
	matchErrors(t, got, []string{"Internal error spec: validation rules were not evaluated: context canceled"})
}

// TestValidateDeadline: a deadline interrupts a long comprehension.
func TestValidateDeadline(t *testing.T) {
	v, errs := Compile(schema(t, spec(`"l":{"type":"array","maxItems":1400,"items":{"type":"integer"}}`, `{"rule":"self.l.all(x, self.l.all(y, x >= 0))"}`)), rootPath)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	items := make([]string, 1400)
	for i := range items {
		items[i] = fmt.Sprint(i)
	}
	obj := object(t, `{"spec":{"l":[`+strings.Join(items, ",")+`]}}`)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
	defer cancel()
	got := v.Validate(ctx, obj, nil)
	matchErrors(t, got, []string{"Internal error spec: validation rules were not evaluated: context deadline exceeded"})
}

// TestConcurrent compiles and validates from several goroutines; run with
// -race.
func TestConcurrent(t *testing.T) {
	s := schema(t, typicalSchema)
	obj := object(t, typicalObject)
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, errs := Compile(s, rootPath)
			if len(errs) > 0 {
				t.Error(errs)
				return
			}
			for j := 0; j < 20; j++ {
				if errs := v.Validate(context.Background(), obj, obj); len(errs) > 0 {
					t.Error(errs)
					return
				}
			}
		}()
	}
	wg.Wait()
}
