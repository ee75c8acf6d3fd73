package crdschema

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// schemaPath is the base path the tests hand to New, kept short so that
// expected errors stay readable.
var schemaPath = field.NewPath("s")

func parseSchema(t testing.TB, y string) *apiextensionsv1.JSONSchemaProps {
	t.Helper()
	var p apiextensionsv1.JSONSchemaProps
	if err := yaml.UnmarshalStrict([]byte(y), &p); err != nil {
		t.Fatalf("bad test schema: %v\n%s", err, y)
	}
	return &p
}

func mustNew(t testing.TB, y string) *Structural {
	t.Helper()
	s, errs := New(parseSchema(t, y), schemaPath)
	if len(errs) > 0 {
		t.Fatalf("New: unexpected errors: %v", errs)
	}
	return s
}

func mustNewOpts(t testing.TB, y string, o options) *Structural {
	t.Helper()
	s, errs := build(parseSchema(t, y), schemaPath, o)
	if len(errs) > 0 {
		t.Fatalf("build: unexpected errors: %v", errs)
	}
	return s
}

// parseObject decodes JSON as the server does.
func parseObject(t testing.TB, j string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts([]byte(j), &m); err != nil {
		if len(j) > 200 {
			j = j[:200] + "..."
		}
		t.Fatalf("bad test object: %v\n%s", err, j)
	}
	return m
}

func errorStrings(errs field.ErrorList) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

func diffStrings(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	same := len(got) == len(want)
	for i := 0; same && i < len(got); i++ {
		same = got[i] == want[i]
	}
	if !same {
		t.Errorf("%s:\ngot:\n%s\nwant:\n%s", what, lines(got), lines(want))
	}
}

func lines(s []string) string {
	out := ""
	for _, l := range s {
		out += "\t" + l + "\n"
	}
	return out
}
