package jsonscan

import (
	"reflect"
	"strings"
	"testing"

	sigsjson "sigs.k8s.io/json"
)

// checkObject fails t when DecodeObject answers b otherwise than the
// decoders it stands in for, and reports whether it answered.
func checkObject(t *testing.T, b []byte) bool {
	t.Helper()
	got, ok := DecodeObject(b)
	if !ok {
		return false
	}
	var want map[string]any
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(b, &want); err != nil {
		t.Fatalf("answered %s, which the decoder refuses: %v", b, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s\ngot  %#v\nwant %#v", b, got, want)
	}
	var strict map[string]any
	problems, err := sigsjson.UnmarshalStrict(b, &strict, sigsjson.DisallowDuplicateFields)
	if err != nil || len(problems) > 0 || !reflect.DeepEqual(got, strict) {
		t.Fatalf("%s: the strict decoder gives %#v, %v, %v", b, strict, problems, err)
	}
	return true
}

func TestDecodeObject(t *testing.T) {
	tests := []struct {
		json   string
		answer bool
	}{
		{`{}`, true},
		{` {"a" : [1, -2, "x", true, false, null, {}, []] , "b":{"c":{"d":9223372036854775807}}} `, true},
		{`{"\u00e9\n":"\ud83d\ude00","A":"a","a":"b"}`, true},
		{`{"a":-0}`, true},
		{`{"a":1.5}`, false},
		{`{"a":1e3}`, false},
		{`{"a":9223372036854775808}`, false},
		{`{"a":1,"a":2}`, false},
		{`{"a":1,"\u0061":2}`, false},
		{"{\"a\":\"\xff\"}", false},
		{`null`, false},
		{`[]`, false},
		{`{} x`, false},
		{`{"a":tru}`, false},
		{`{"a":` + strings.Repeat("[", 2000) + strings.Repeat("]", 2000) + `}`, false},
	}
	for _, tt := range tests {
		if got := checkObject(t, []byte(tt.json)); got != tt.answer {
			t.Errorf("%.60s: answered = %v, want %v", tt.json, got, tt.answer)
		}
	}
}

func FuzzDecodeObject(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"example.com/v1","kind":"Foo","metadata":{"name":"a","labels":{"x":"y"}},"spec":{"n":[1,2,{"b":null}]}}`))
	f.Add([]byte(`{"a":"\u00e9","b":-0,"c":[[]]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkObject(t, b)
	})
}
