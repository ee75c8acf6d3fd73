package jsonscan

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// TestScalarsAgreeWithDecoder checks the scalar readers against
// encoding/json: each either reads what the decoder reads, to the end of
// the text, or reports false.
func TestScalarsAgreeWithDecoder(t *testing.T) {
	tests := []struct {
		text string
		read func(*Scanner) (any, bool)
	}{
		{`12`, readInt}, {`-0`, readInt}, {`9223372036854775807`, readInt}, {`-9223372036854775808`, readInt},
		{`9223372036854775808`, readInt}, {`1.0`, readInt}, {`1e2`, readInt}, {`01`, readInt}, {`-`, readInt},
		{`"a"`, readString}, {`"\u00e9\n"`, readString}, {`"\ud800"`, readString}, {"\"\xff\"", readString},
		{"\"a\tb\"", readString}, {`"a`, readString}, {`"\q"`, readString},
		{`true`, readBool}, {`false`, readBool}, {`tru`, readBool}, {`null`, readBool},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			s := New([]byte(tt.text))
			got, ok := tt.read(s)
			if !ok {
				return // the caller falls back to the decoder
			}
			if !s.End() {
				t.Fatalf("read %v and stopped before the end", got)
			}
			want := decoded(t, tt.text, got)
			if got != want {
				t.Errorf("read %#v, the decoder reads %#v", got, want)
			}
		})
	}
}

func readInt(s *Scanner) (any, bool) {
	var n int64
	ok := s.IntInto(&n)
	return n, ok
}

func readString(s *Scanner) (any, bool) {
	var b []byte
	ok := s.StringInto(&b)
	return string(b), ok
}

func readBool(s *Scanner) (any, bool) { return s.Boolean() }

// decoded is what encoding/json reads from text into a value of like's
// type; a text it refuses fails t.
func decoded(t *testing.T, text string, like any) any {
	t.Helper()
	ptr := map[string]any{"int64": new(int64), "string": new(string), "bool": new(bool)}[fmt.Sprintf("%T", like)]
	if err := json.Unmarshal([]byte(text), ptr); err != nil {
		t.Fatalf("read %q, which the decoder refuses: %v", text, err)
	}
	return reflect.ValueOf(ptr).Elem().Interface()
}

func TestSkipAndSpan(t *testing.T) {
	tests := []struct {
		text string
		ok   bool
	}{
		{`{"a":[1,2.5e3,{"b":null}],"c":"d"}`, true},
		{`[ ]`, true},
		{`{"a" 1}`, false},
		{`[1,]`, false},
		{`1.`, false},
	}
	for _, tt := range tests {
		s := New([]byte(" " + tt.text + " "))
		start := s.PeekAt()
		ok := s.Skip()
		if ok != tt.ok {
			t.Errorf("Skip(%s) = %v, want %v", tt.text, ok, tt.ok)
			continue
		}
		if ok && string(s.Span(start)) != tt.text {
			t.Errorf("Span = %q, want %q", s.Span(start), tt.text)
		}
	}
}
