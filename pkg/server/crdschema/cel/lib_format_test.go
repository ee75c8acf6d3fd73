package cel

import (
	"strings"
	"testing"
)

func TestFormatLibrary(t *testing.T) {
	rulePath := "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule"
	labelMsg := "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
	runLibCases(t, []libCase{
		{name: "valid", rule: "!format.dns1123Label().validate('my-name').hasValue() && !format.dns1123Subdomain().validate('a.b.c').hasValue() && " +
			"!format.dns1035Label().validate('abc').hasValue() && !format.qualifiedName().validate('example.com/name').hasValue() && " +
			"!format.dns1123LabelPrefix().validate('my-').hasValue() && !format.dns1123SubdomainPrefix().validate('a.b-').hasValue() && " +
			"!format.dns1035LabelPrefix().validate('a-').hasValue() && !format.labelValue().validate('').hasValue() && " +
			"!format.uri().validate('https://example.com').hasValue() && !format.uuid().validate('8A3F04EC-12E5-4F6B-9C8D-1A2B3C4D5E6F').hasValue() && " +
			"!format.byte().validate('aGVsbG8=').hasValue() && !format.date().validate('2024-02-29').hasValue() && " +
			"!format.datetime().validate('2024-02-29T12:00:00Z').hasValue()"},
		{name: "invalid", rule: "format.dns1123Label().validate('MY_NAME').hasValue() && format.dns1123Subdomain().validate('-a').hasValue() && " +
			"format.dns1035Label().validate('1abc').hasValue() && format.qualifiedName().validate('a/b/c').hasValue() && " +
			"format.dns1123LabelPrefix().validate('-my').hasValue() && format.labelValue().validate('-x').hasValue() && " +
			"format.uri().validate('example.com').hasValue() && format.uuid().validate('8A3F04EC').hasValue() && " +
			"format.byte().validate('aGVsbG8').hasValue() && format.date().validate('2023-02-29').hasValue() && " +
			"format.datetime().validate('2024-02-29').hasValue()"},
		// (comparing whole lists would have no cost bound, as in kube)
		{name: "messages", rule: "format.dns1123Label().validate('MY_NAME').value()[0] == \"" + labelMsg + "\" && " +
			"format.uuid().validate('x').value()[0] == 'does not match the UUID format' && format.byte().validate('x').value()[0] == 'invalid base64' && " +
			"format.date().validate('x').value()[0] == 'invalid date' && format.datetime().validate('x').value()[0] == 'invalid datetime' && " +
			"format.uri().validate('x').value()[0] == 'parse \"x\": invalid URI for request' && format.dns1123Label().validate('" + strings.Repeat("a", 64) + "').value().size() == 1"},
		{name: "named", rule: "format.named('dns1123Label').hasValue() && format.named('dns1123Label').value() == format.dns1123Label() && " +
			"!format.named('DNS1123Label').hasValue() && !format.named('email').hasValue() && " +
			"format.named('labelValue').value().validate('a b').hasValue() && !(format.named('uri').value() == format.uuid())"},

		{name: "from a field", rule: "!format.dns1123Label().validate(self.s).hasValue()", spec: `{"s":"my-name"}`},
		{name: "failing with the errors", rule: "!format.dns1123Label().validate(self.s).hasValue()", msgExpr: "format.dns1123Label().validate(self.s).value()[0]", spec: `{"s":"My-Name"}`,
			want: []string{"Invalid value spec: " + labelMsg}},
		{name: "named from a field", rule: "format.named(self.s).hasValue() && !format.named(self.s).value().validate(self.t).hasValue()", spec: `{"s":"labelValue","t":"x y"}`,
			want: []string{ruleFailed("format.named(self.s).hasValue() && !format.named(self.s).value().validate(self.t).hasValue()")}},
		{name: "list items", rule: "self.l.all(x, !format.qualifiedName().validate(x).hasValue())", spec: `{"l":["a","b/c","d/e/f"]}`,
			want: []string{ruleFailed("self.l.all(x, !format.qualifiedName().validate(x).hasValue())")}},
		{name: "value of none", rule: "format.named(self.s).value().validate('x').hasValue()", spec: `{"s":"nope"}`,
			want: []string{ruleErr("optional.none() dereference", "format.named(self.s).value().validate('x').hasValue()")}},

		{name: "unknown format", rule: "format.email().validate('x').hasValue()",
			compile: []string{"Invalid value " + rulePath + ": compilation failed: ERROR: <input>:1:1: undeclared reference to 'format' (in container '')..."}},
		// kube estimates validate as a 128-character regex over the string:
		// too much for an unbounded one
		{name: "unbounded string", rule: "!format.dns1123Label().validate(self.u).hasValue()",
			compile: []string{"Forbidden " + rulePath + ": estimated rule cost exceeds budget by factor of 1.006634x..."}},
	})
}

func TestIsBase64(t *testing.T) {
	for s, want := range map[string]bool{
		"": false, "aGVsbG8=": true, "aGVsbA==": true, "aGVs": true, "aGVsbG8": false, "aGVsbG8==": false,
		"a===": false, "====": false, "aG-s": false, "aG/+": true, "aG=s": false, strings.Repeat("A", 400): true,
	} {
		if got := isBase64(s); got != want {
			t.Errorf("isBase64(%q) = %v", s, got)
		}
	}
}
