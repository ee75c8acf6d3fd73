package cel

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/server/crdschema"
)

// ratchetSpec has a field for each way rules ratchet.
var ratchetSpec = spec(strings.Join([]string{
	`"n":{"type":"integer","x-kubernetes-validations":[{"rule":"self < 10"}]}`,
	`"name":{"type":"string","maxLength":10,"x-kubernetes-validations":[{"rule":"self.size() <= 3","messageExpression":"'name ' + self + ' is too long'"}]}`,
	`"other":{"type":"string"}`,
	`"ratio":{"type":"number","x-kubernetes-validations":[{"rule":"self < 1.0"}]}`,
	`"items":{"type":"array","maxItems":10,"x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"items":{"type":"object","required":["name"],` +
		`"properties":{"name":{"type":"string"},"v":{"type":"integer"},"note":{"type":"string"}},"x-kubernetes-validations":[{"rule":"self.v < 100"}]}}`,
	`"tags":{"type":"array","maxItems":10,"items":{"type":"string","maxLength":10,"x-kubernetes-validations":[{"rule":"self.matches('^[a-z]+$')"}]}}`,
	`"set":{"type":"array","maxItems":10,"x-kubernetes-list-type":"set","x-kubernetes-validations":[{"rule":"size(self) < 10"}],` +
		`"items":{"type":"string","maxLength":10,"x-kubernetes-validations":[{"rule":"self.size() <= 2"}]}}`,
	`"atomic":{"type":"array","maxItems":10,"x-kubernetes-list-type":"atomic","items":{"type":"string","maxLength":10,"x-kubernetes-validations":[{"rule":"self.size() <= 2"}]}}`,
	`"rows":{"type":"array","maxItems":10,"items":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string","maxLength":10}},"x-kubernetes-validations":[{"rule":"self.a < 10"}]}}`,
	`"m":{"type":"object","maxProperties":10,"additionalProperties":{"type":"string","maxLength":10,"x-kubernetes-validations":[{"rule":"self.size() <= 3"}]}}`,
	`"pair":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"},"c":{"type":"string","maxLength":10}},` +
		`"x-kubernetes-validations":[{"rule":"self.a < self.b","fieldPath":".a"},{"rule":"self.c == 'x'"}]}`,
	`"v":{"type":"integer","x-kubernetes-validations":[{"rule":"self >= oldSelf","message":"v may not decrease"}]}`,
	`"w":{"type":"integer","x-kubernetes-validations":[{"rule":"oldSelf < 5","message":"w was too big"}]}`,
	`"free":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"a":{"type":"integer"}},"x-kubernetes-validations":[{"rule":"self.a < 10"}]}`,
}, ","), "")

func TestValidateRatcheting(t *testing.T) {
	v, errs := Compile(schema(t, ratchetSpec), rootPath)
	if len(errs) > 0 {
		t.Fatalf("compile: %v", errs)
	}
	tests := []struct {
		name     string
		obj, old string // specs; old "" is a create
		want     []string
	}{{
		name: "create is never ratcheted",
		obj:  `{"n":12}`,
		want: []string{"Invalid value spec.n: failed rule: self < 10"},
	}, {
		name: "rule at an unchanged node passes",
		obj:  `{"n":12,"other":"changed"}`,
		old:  `{"n":12}`,
	}, {
		name: "rule at a changed node fails",
		obj:  `{"n":13}`,
		old:  `{"n":12}`,
		want: []string{"Invalid value spec.n: failed rule: self < 10"},
	}, {
		name: "rule at a new node fails",
		obj:  `{"n":13}`,
		old:  `{}`,
		want: []string{"Invalid value spec.n: failed rule: self < 10"},
	}, {
		name: "integers and integral floats are the same value",
		obj:  `{"ratio":2,"other":"changed"}`,
		old:  `{"ratio":2.0}`,
	}, {
		name: "a ratcheted failure with a messageExpression",
		obj:  `{"name":"long","other":"changed"}`,
		old:  `{"name":"long"}`,
	}, {
		name: "an unratcheted failure with a messageExpression",
		obj:  `{"name":"longer"}`,
		old:  `{"name":"long"}`,
		want: []string{"Invalid value spec.name: name longer is too long"},
	}, {
		name: "list-map item matched by key passes when unchanged",
		obj:  `{"items":[{"name":"b","v":1},{"name":"a","v":200}]}`,
		old:  `{"items":[{"name":"a","v":200}]}`,
	}, {
		name: "list-map item whose value changed fails",
		obj:  `{"items":[{"name":"a","v":200,"note":"x"}]}`,
		old:  `{"items":[{"name":"a","v":200}]}`,
		want: []string{"Invalid value spec.items[0]: failed rule: self.v < 100"},
	}, {
		name: "newly added invalid list-map item fails",
		obj:  `{"items":[{"name":"a","v":200},{"name":"c","v":300}]}`,
		old:  `{"items":[{"name":"a","v":200}]}`,
		want: []string{"Invalid value spec.items[1]: failed rule: self.v < 100"},
	}, {
		// kube's CorrelatedObject takes an unset list type as atomic
		name: "items of a list without list type do not match by index",
		obj:  `{"tags":["BAD","ok"]}`,
		old:  `{"tags":["BAD"]}`,
		want: []string{"Invalid value spec.tags[0]: failed rule: self.matches('^[a-z]+$')"},
	}, {
		name: "items of an unchanged list without list type pass",
		obj:  `{"tags":["BAD","ok"],"other":"changed"}`,
		old:  `{"tags":["BAD","ok"]}`,
	}, {
		name: "items of a changed atomic list do not match one by one",
		obj:  `{"atomic":["abc","d"]}`,
		old:  `{"atomic":["abc"]}`,
		want: []string{"Invalid value spec.atomic[0]: failed rule: self.size() <= 2"},
	}, {
		name: "items of an unchanged atomic list pass",
		obj:  `{"atomic":["abc"],"other":"changed"}`,
		old:  `{"atomic":["abc"]}`,
	}, {
		name: "an unchanged item of a changed list fails even when others change inside",
		obj:  `{"rows":[{"a":12},{"a":1,"b":"new"}]}`,
		old:  `{"rows":[{"a":12},{"a":1}]}`,
		want: []string{"Invalid value spec.rows[0]: failed rule: self.a < 10"},
	}, {
		name: "a changed item of an unchanged list shape fails",
		obj:  `{"rows":[{"a":12,"b":"new"}]}`,
		old:  `{"rows":[{"a":12}]}`,
		want: []string{"Invalid value spec.rows[0]: failed rule: self.a < 10"},
	}, {
		name: "items of an unchanged list of objects pass",
		obj:  `{"rows":[{"a":12,"b":"x"}],"other":"changed"}`,
		old:  `{"rows":[{"a":12,"b":"x"}]}`,
	}, {
		name: "an item moved to another index is new",
		obj:  `{"tags":["ok","BAD"]}`,
		old:  `{"tags":["BAD"]}`,
		want: []string{"Invalid value spec.tags[1]: failed rule: self.matches('^[a-z]+$')"},
	}, {
		name: "items of an unchanged set pass",
		obj:  `{"set":["abc"],"other":"changed"}`,
		old:  `{"set":["abc"]}`,
	}, {
		name: "items of a changed set do not match one by one",
		obj:  `{"set":["abc","d"]}`,
		old:  `{"set":["abc"]}`,
		want: []string{"Invalid value spec.set[0]: failed rule: self.size() <= 2"},
	}, {
		name: "map entries match by key",
		obj:  `{"m":{"a":"long","b":"ok"}}`,
		old:  `{"m":{"a":"long"}}`,
	}, {
		name: "changed map entry fails",
		obj:  `{"m":{"a":"longer"}}`,
		old:  `{"m":{"a":"long"}}`,
		want: []string{"Invalid value spec.m[a]: failed rule: self.size() <= 3"},
	}, {
		name: "rules of an unchanged object pass, fieldPath or not",
		obj:  `{"pair":{"a":5,"b":1,"c":"y"},"other":"changed"}`,
		old:  `{"pair":{"a":5,"b":1,"c":"y"}}`,
	}, {
		name: "rules of an object fail when any of it changes",
		obj:  `{"pair":{"a":5,"b":1,"c":"z"}}`,
		old:  `{"pair":{"a":5,"b":1,"c":"y"}}`,
		want: []string{"Invalid value spec.pair.a: failed rule: self.a < self.b", "Invalid value spec.pair: failed rule: self.c == 'x'"},
	}, {
		name: "transition rule is enforced",
		obj:  `{"v":2}`,
		old:  `{"v":3}`,
		want: []string{"Invalid value spec.v: v may not decrease"},
	}, {
		name: "transition rule never ratchets, even at an unchanged node",
		obj:  `{"w":7,"other":"changed"}`,
		old:  `{"w":7}`,
		want: []string{"Invalid value spec.w: w was too big"},
	}, {
		name: "evaluation errors do not ratchet",
		obj:  `{"pair":{"a":5,"c":"y"},"other":"changed"}`,
		old:  `{"pair":{"a":5,"c":"y"}}`,
		want: []string{"Invalid value spec.pair: no such key: b evaluating rule: self.a < self.b"},
	}, {
		name: "objects with unknown fields always count as changed, as in kube",
		obj:  `{"free":{"a":11,"x":1}}`,
		old:  `{"free":{"a":11,"x":1}}`,
		want: []string{"Invalid value spec.free: failed rule: self.a < 10"},
	}, {
		name: "without unknown fields the same object ratchets",
		obj:  `{"free":{"a":11},"other":"changed"}`,
		old:  `{"free":{"a":11}}`,
	}, {
		name: "a value of another type is a change",
		obj:  `{"n":12}`,
		old:  `{"n":"12"}`,
		want: []string{"Invalid value spec.n: failed rule: self < 10"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obj := object(t, `{"apiVersion":"x.io/v1","kind":"T","metadata":{"name":"n","uid":"1"},"spec":`+tc.obj+`}`)
			var old map[string]any
			if tc.old != "" {
				old = object(t, `{"apiVersion":"x.io/v1","kind":"T","metadata":{"name":"n","uid":"1"},"spec":`+tc.old+`}`)
			}
			matchErrors(t, v.Validate(context.Background(), obj, old), tc.want)
			if old != nil && len(tc.want) == 0 && len(v.Validate(context.Background(), obj, nil)) == 0 {
				t.Errorf("test case is valid without ratcheting")
			}
		})
	}
}

// TestRatchetingRoot: the object root holds metadata, which rules see only
// as name and generateName; anything else in it makes the root count as
// changed, as kube's schema-guided comparison does.
func TestRatchetingRoot(t *testing.T) {
	v, errs := Compile(schema(t, `{"type":"object","properties":{"spec":{"type":"object","properties":{"n":{"type":"integer"}}}},`+
		`"x-kubernetes-validations":[{"rule":"self.spec.n < 10"}]}`), rootPath)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	for _, tc := range []struct {
		obj  string
		want []string
	}{
		{`{"metadata":{"name":"a","uid":"1"},"spec":{"n":12}}`, []string{"Invalid value <nil>: failed rule: self.spec.n < 10"}},
		{`{"metadata":{"name":"a"},"spec":{"n":12}}`, nil},
		{`{"spec":{"n":12}}`, nil},
	} {
		matchErrors(t, v.Validate(context.Background(), object(t, tc.obj), object(t, tc.obj)), tc.want)
	}
}

// TestRatchetingListTypeUnknown: a list with no rule at or above it has no
// rule type; its items are still not matched with old items, as kube does
// for lists without x-kubernetes-list-type, while the items of a map list
// in the same position are matched by key.
func TestRatchetingListTypeUnknown(t *testing.T) {
	item := `"items":{"type":"object","properties":{"k":{"type":"string"},"n":{"type":"integer"}},"x-kubernetes-validations":[{"rule":"self.n < 10"}]}`
	v, errs := Compile(schema(t, spec(`"l":{"type":"array","maxItems":10,`+item+`},`+
		`"ml":{"type":"array","maxItems":10,"x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k"],`+item+`}`, "")), rootPath)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	obj := object(t, `{"spec":{"l":[{"n":12},{"n":1},{"n":13}],"ml":[{"k":"a","n":12},{"k":"b","n":1},{"k":"c","n":13}]}}`)
	old := object(t, `{"spec":{"l":[{"n":12},{"n":2}],"ml":[{"k":"a","n":12},{"k":"b","n":2}]}}`)
	matchErrors(t, v.Validate(context.Background(), obj, old), []string{
		"Invalid value spec.l[0]: failed rule: self.n < 10",
		"Invalid value spec.l[2]: failed rule: self.n < 10",
		"Invalid value spec.ml[2]: failed rule: self.n < 10",
	})
}

// TestRatchetingLongMapList: the transition rules' correlator is shared
// with ratcheting, and many unchanged items all ratchet.
func TestRatchetingLongMapList(t *testing.T) {
	v, errs := Compile(schema(t, spec(`"l":{"type":"array","maxItems":100,"x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k","j"],`+
		`"items":{"type":"object","required":["k","j"],"properties":{"k":{"type":"string","maxLength":10},"j":{"type":"integer"},"n":{"type":"integer"}},`+
		`"x-kubernetes-validations":[{"rule":"self.n < 10"},{"rule":"self.n >= oldSelf.n","message":"n may not decrease"}]}}`, "")), rootPath)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var items, reversed []string
	for i := 0; i < 50; i++ {
		items = append(items, fmt.Sprintf(`{"k":"k%d","j":%d,"n":%d}`, i, i, 10+i))
	}
	for i := len(items) - 1; i >= 0; i-- {
		reversed = append(reversed, items[i])
	}
	reversed[0] = `{"k":"k49","j":49,"n":58}`
	obj := object(t, `{"spec":{"l":[`+strings.Join(reversed, ",")+`,{"k":"new","j":0,"n":1}]}}`)
	old := object(t, `{"spec":{"l":[`+strings.Join(items, ",")+`]}}`)
	matchErrors(t, v.Validate(context.Background(), obj, old), []string{
		"Invalid value spec.l[0]: failed rule: self.n < 10",
		"Invalid value spec.l[0]: n may not decrease",
	})
}

func TestUnchanged(t *testing.T) {
	var b typeBuilder
	ty := b.build(crdschema.Unchecked(schema(t, `{"type":"object","properties":{`+
		`"set":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}},`+
		`"list":{"type":"array","items":{"type":"string"}},`+
		`"ml":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k"],"items":{"type":"object","properties":{"k":{"type":"string"},"v":{"type":"number"}}}},`+
		`"m":{"type":"object","additionalProperties":{"type":"integer"}},`+
		`"x-y":{"type":"string"}}}`)).Root(), false, "t")
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{`{}`, `{}`, true},
		{`{"set":["a","b"]}`, `{"set":["a","b"]}`, true},
		{`{"set":["a","b"]}`, `{"set":["b","a"]}`, false}, // kube compares sets in order
		{`{"list":["a","b"]}`, `{"list":["b","a"]}`, false},
		{`{"list":["a","b"]}`, `{"list":["a","b"]}`, true},
		{`{"ml":[{"k":"a","v":1},{"k":"b"}]}`, `{"ml":[{"k":"b"},{"k":"a","v":1.0}]}`, true},
		{`{"ml":[{"k":"a","v":1},{"k":"b"}]}`, `{"ml":[{"k":"b"},{"k":"c","v":1}]}`, false},
		{`{"m":{"a":1,"b":2}}`, `{"m":{"b":2,"a":1}}`, true},
		{`{"m":{"a":1}}`, `{"m":{"b":1}}`, false},
		{`{"x-y":"a"}`, `{"x-y":"a"}`, true},
		{`{"unknown":"a"}`, `{"unknown":"a"}`, false},
		{`{"list":null}`, `{"list":null}`, true},
		{`{"list":null}`, `{"list":[]}`, false},
	} {
		if got := crdschema.Unchanged(ty, object(t, tc.a), object(t, tc.b)); got != tc.want {
			t.Errorf("unchanged(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestRatchetingWarnings: a failure dropped by ratcheting comes back as
// a warning, as kube-apiserver sends it, when the context asks for them;
// failures that are reported are not warned about.
func TestRatchetingWarnings(t *testing.T) {
	v, errs := Compile(schema(t, ratchetSpec), rootPath)
	if len(errs) > 0 {
		t.Fatalf("compile: %v", errs)
	}
	tests := []struct {
		obj, old string
		warnings []string
		errs     []string
	}{
		{`{"n":12,"name":"long","other":"changed"}`, `{"n":12,"name":"long"}`,
			[]string{`spec.n: Invalid value: "integer": failed rule: self < 10`, `spec.name: Invalid value: "string": name long is too long`}, nil},
		{`{"n":13,"name":"long"}`, `{"n":12,"name":"long"}`,
			[]string{`spec.name: Invalid value: "string": name long is too long`}, []string{"Invalid value spec.n: failed rule: self < 10"}},
		{`{"w":7,"other":"changed"}`, `{"w":7}`, nil, []string{"Invalid value spec.w: w was too big"}},
	}
	for _, tc := range tests {
		var got []string
		ctx := WithWarnings(context.Background(), func(msg string) { got = append(got, msg) })
		obj := object(t, `{"apiVersion":"x.io/v1","kind":"T","metadata":{"name":"n"},"spec":`+tc.obj+`}`)
		old := object(t, `{"apiVersion":"x.io/v1","kind":"T","metadata":{"name":"n"},"spec":`+tc.old+`}`)
		matchErrors(t, v.Validate(ctx, obj, old), tc.errs)
		if !slices.Equal(got, tc.warnings) {
			t.Errorf("%s after %s: warnings %q, want %q", tc.obj, tc.old, got, tc.warnings)
		}
	}
}
