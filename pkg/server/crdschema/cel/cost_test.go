package cel

import (
	"context"
	"strings"
	"testing"
)

// Runtime costs are exercised with chains of string functions over long
// strings: they are charged per character, so the budgets run out after
// little CPU time (a nested comprehension would reach them too, but slowly).

// chain applies lowerAscii/upperAscii n times to x.
func chain(x string, n int) string {
	for i := 0; i < n; i++ {
		if i%2 == 0 {
			x += ".lowerAscii()"
		} else {
			x += ".upperAscii()"
		}
	}
	return x
}

func TestRuntimeCost(t *testing.T) {
	long := `"` + strings.Repeat("a", 1000000) + `"`
	item := `"` + strings.Repeat("a", 225000) + `"`
	items := strings.TrimSuffix(strings.Repeat(item+",", 10), ",")
	perItem := `{"rule":"` + chain("self", 8) + ` != ''"}`
	tests := []struct {
		name   string
		schema string
		obj    string
		want   []string
	}{{
		name:   "per-call limit",
		schema: spec(`"s":{"type":"string","maxLength":1000000},"after":{"type":"integer","x-kubernetes-validations":[{"rule":"self > 100"}]}`, `{"rule":"`+chain("self.s", 12)+` != ''"}`),
		obj:    `{"spec":{"s":` + long + `,"after":1}}`,
		want:   []string{"Invalid value spec: 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: " + chain("self.s", 12) + " != ''"},
	}, {
		name:   "within the per-call limit",
		schema: spec(`"s":{"type":"string","maxLength":1000000},"after":{"type":"integer","x-kubernetes-validations":[{"rule":"self > 100"}]}`, `{"rule":"`+chain("self.s", 12)+` != ''"}`),
		obj:    `{"spec":{"s":"abc","after":1}}`,
		want:   []string{"Invalid value spec.after: failed rule: self > 100"},
	}, {
		// every rule passes the static limits, and every evaluation the
		// per-call limit, but together they cost more than an object may
		name: "per-object budget",
		schema: spec(`"l":{"type":"array","maxItems":10,"items":{"type":"string","maxLength":225000,"x-kubernetes-validations":[`+
			strings.TrimSuffix(strings.Repeat(perItem+",", 6), ",")+`]}}`, ""),
		obj:  `{"spec":{"l":[` + items + `]}}`,
		want: []string{"Invalid value spec.l[9]: validation failed due to running out of cost budget, no further validation rules will be run"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, errs := Compile(schema(t, tc.schema), rootPath)
			if len(errs) > 0 {
				t.Fatalf("compile: %v", errs)
			}
			got := v.Validate(context.Background(), object(t, tc.obj), nil)
			matchErrors(t, got, tc.want)
		})
	}
}

// TestMessageExpressionBudget: a message that runs out of budget stops
// validation instead of falling back to the static message.
func TestMessageExpressionBudget(t *testing.T) {
	msg := chain("self.s", 12) + ".substring(0, 1)"
	v, errs := Compile(schema(t, spec(`"s":{"type":"string","maxLength":1000000}`,
		`{"rule":"false","message":"static","messageExpression":"`+msg+`"},{"rule":"false"}`)), rootPath)
	if len(errs) > 0 {
		t.Fatalf("compile: %v", errs)
	}
	got := v.Validate(context.Background(), object(t, `{"spec":{"s":"`+strings.Repeat("a", 1000000)+`"}}`), nil)
	matchErrors(t, got, []string{`Invalid value spec: no further validation rules will be run due to call cost exceeds limit for messageExpression: "` + msg + `"`})
}
