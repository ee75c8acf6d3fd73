package cel

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var rootPath = field.NewPath("spec", "versions").Index(0).Child("schema", "openAPIV3Schema")

// schema parses a schema written as JSON (YAML would need another module).
func schema(t testing.TB, src string) *apiextensionsv1.JSONSchemaProps {
	t.Helper()
	var s apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal([]byte(src), &s); err != nil {
		t.Fatalf("bad schema %s: %v", src, err)
	}
	return &s
}

// object decodes JSON the way the server does: integers as int64, other
// numbers as float64.
func object(t testing.TB, src string) map[string]any {
	t.Helper()
	if src == "" {
		return nil
	}
	v, err := decodeJSON([]byte(src))
	if err != nil {
		t.Fatalf("bad object %s: %v", src, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("not an object: %s", src)
	}
	return m
}

func decodeJSON(b []byte) (any, error) {
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("trailing data")
	}
	return numbers(v), nil
}

func numbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = numbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = numbers(e)
		}
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	}
	return v
}

// errStrings renders errors as "<type> <field>: <detail>" for comparison.
func errStrings(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, fmt.Sprintf("%s %s: %s", e.Type, e.Field, e.Detail))
	}
	return out
}

// matchErrors compares errors with wanted "<type> <field>: <detail>" lines;
// a wanted line ending in "..." matches as a prefix.
func matchErrors(t *testing.T, got field.ErrorList, want []string) {
	t.Helper()
	gs := errStrings(got)
	ok := len(gs) == len(want)
	for i := 0; ok && i < len(want); i++ {
		if p, isPrefix := strings.CutSuffix(want[i], "..."); isPrefix {
			ok = strings.HasPrefix(gs[i], p)
		} else {
			ok = gs[i] == want[i]
		}
	}
	if !ok {
		t.Errorf("errors:\n got: %s\nwant: %s", strings.Join(gs, "\n      "), strings.Join(want, "\n      "))
	}
}
