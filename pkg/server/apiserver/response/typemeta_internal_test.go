package response

import "testing"

func TestWithoutTypeMeta(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"config map", `{"apiVersion":"v1","data":{"a":"b"},"kind":"ConfigMap","metadata":{"name":"x"}}`, `{"data":{"a":"b"},"metadata":{"name":"x"}}`},
		{"only type meta", `{"apiVersion":"v1","kind":"ConfigMap"}`, `{}`},
		{"nested kind and apiVersion stay", `{"apiVersion":"v1","involvedObject":{"apiVersion":"apps/v1","kind":"Pod"},"kind":"Event"}`, `{"involvedObject":{"apiVersion":"apps/v1","kind":"Pod"}}`},
		{"strings with quotes, braces and commas", `{"data":{"k":"a\"},{\"kind\":1,"},"kind":"ConfigMap","z":[1,{"kind":"x"}]}`, `{"data":{"k":"a\"},{\"kind\":1,"},"z":[1,{"kind":"x"}]}`},
		{"spaces", ` { "kind" : "X" , "a" : [ 1 , 2 ] } `, `{"a" : [ 1 , 2 ] }`},
		{"empty object", `{}`, `{}`},
		{"not an object", `[1]`, `[1]`},
		{"truncated", `{"kind":"X","a":{"b":1}`, `{"kind":"X","a":{"b":1}`},
		{"unterminated string", `{"kind":"X,"a":1}`, `{"kind":"X,"a":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(withoutTypeMeta([]byte(tt.in))); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}
