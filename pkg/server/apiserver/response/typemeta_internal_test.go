package response

import (
	"bufio"
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	sigsjson "sigs.k8s.io/json"
)

// cut is in without its typeMetaCuts.
func cut(in []byte) []byte {
	var buf bytes.Buffer
	bw := &bufferedWriter{w: bufio.NewWriter(&buf)}
	writeCut(bw, in, typeMetaCuts(in))
	_ = bw.Flush()
	return buf.Bytes()
}

func TestTypeMetaCuts(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"config map", `{"apiVersion":"v1","data":{"a":"b"},"kind":"ConfigMap","metadata":{"name":"x"}}`, `{"data":{"a":"b"},"metadata":{"name":"x"}}`},
		{"type meta first", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}`, `{"metadata":{"name":"x"}}`},
		{"type meta last", `{"a":1,"apiVersion":"v1","kind":"ConfigMap"}`, `{"a":1}`},
		{"only type meta", `{"apiVersion":"v1","kind":"ConfigMap"}`, `{}`},
		{"nested kind and apiVersion stay", `{"apiVersion":"v1","involvedObject":{"apiVersion":"apps/v1","kind":"Pod"},"kind":"Event"}`, `{"involvedObject":{"apiVersion":"apps/v1","kind":"Pod"}}`},
		{"strings with quotes, braces and commas", `{"data":{"k":"a\"},{\"kind\":1,"},"kind":"ConfigMap","z":[1,{"kind":"x"}]}`, `{"data":{"k":"a\"},{\"kind\":1,"},"z":[1,{"kind":"x"}]}`},
		{"spaces stay", ` { "kind" : "X" , "a" : [ 1 , 2 ] } `, ` {  "a" : [ 1 , 2 ] } `},
		{"empty object", `{}`, `{}`},
		{"not an object", `[1]`, `[1]`},
		{"truncated", `{"kind":"X","a":{"b":1}`, `{"kind":"X","a":{"b":1}`},
		{"unterminated string", `{"kind":"X,"a":1}`, `{"kind":"X,"a":1}`},
		{"escapes before the closing quote", `{"a":"x\\","kind":"K","b":"\\\"y"}`, `{"a":"x\\","b":"\\\"y"}`},
		{"kind between kept members", `{"a":1,"kind":"K","b":2,"c":3,"apiVersion":"v1","d":4}`, `{"a":1,"b":2,"c":3,"d":4}`},
		{"escape at the very end", `{"a":"\\`, `{"a":"\\`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(cut([]byte(tt.in))); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// FuzzTypeMetaCuts: for any JSON object, the pieces join into the same
// object without its top-level apiVersion and kind; anything else comes
// back whole.
func FuzzTypeMetaCuts(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"v1","data":{"a":"b\"c"},"kind":"ConfigMap","metadata":{"name":"x"}}`))
	f.Add([]byte(` { "kind" : "X" , "a" : [ 1 , {"kind":2} ] } `))
	f.Add([]byte(`{"a":"\\","apiVersion":1}`))
	f.Add([]byte(`{"apiVersion":"v1","kind":"Pod","spec":{}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		got := cut(in)
		var obj map[string]any
		if json.Unmarshal(in, &obj) != nil || obj == nil {
			return
		}
		var cut map[string]any
		if err := json.Unmarshal(got, &cut); err != nil {
			t.Fatalf("%q became %q, not JSON: %v", in, got, err)
		}
		delete(obj, "apiVersion")
		delete(obj, "kind")
		if !reflect.DeepEqual(obj, cut) {
			t.Fatalf("%q became %q", in, got)
		}
	})
}

// TestMetadataObject: a PartialObjectMetadata frame built from the cut
// object is the one built from the whole object.
func TestMetadataObject(t *testing.T) {
	for _, obj := range []string{
		`{"apiVersion":"v1","data":{"k":"a \"metadata\": {}"},"kind":"ConfigMap","metadata":{"labels":{"a":"b"},"name":"x","namespace":"n","resourceVersion":"7","uid":"u"}}`,
		` { "metadata" : { "name" : "spaced" } , "spec" : [ 1 ] } `,
		`{"metadata":{"name":"first"},"metadata":{"name":"last"}}`,
		`{"spec":{}}`,
	} {
		want, werr := ProtoFrame(PartialGVK, "ADDED", []byte(obj))
		got, gerr := ProtoFrame(PartialGVK, "ADDED", metadataObject([]byte(obj)))
		if (werr != nil) != (gerr != nil) || !bytes.Equal(got, want) {
			t.Errorf("%s: frames differ (%v, %v)", obj, gerr, werr)
		}
	}
}

// FuzzMemberValue: the member found is the one a case-sensitive JSON
// decoder keeps.
func FuzzMemberValue(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"v1","metadata":{"name":"x"},"kind":"K"}`))
	f.Add([]byte(`{"metadata":1,"metadata" : [ "a\"b" ] }`))
	f.Add([]byte(`{"meta\u0064ata":{}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		var head struct {
			Metadata json.RawMessage `json:"metadata"`
		}
		if err := sigsjson.UnmarshalCaseSensitivePreserveInts(in, &head); err != nil {
			return
		}
		got, ok := memberValue(in, "metadata")
		if !ok {
			return // left to the decoder
		}
		if !bytes.Equal(got, head.Metadata) {
			t.Fatalf("%q: got %q, want %q", in, got, head.Metadata)
		}
	})
}
