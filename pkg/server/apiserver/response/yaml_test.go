package response

import (
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// nested is a JSON value depth levels deep: objects down to a string.
func nested(depth int) string {
	return strings.Repeat(`{"a":`, depth) + `"x"` + strings.Repeat("}", depth)
}

// TestYAMLOutputBound: the YAML answer for n bytes of JSON is at most
// yamlBound(n) bytes; the deepest object the server accepts (60 KB,
// whose YAML would be hundreds of megabytes) is refused as YAML.
// Ordinary objects come out as sigs.k8s.io/yaml writes them.
func TestYAMLOutputBound(t *testing.T) {
	deep := `{"apiVersion":"limits.example.com/v1","kind":"Blob","metadata":{"name":"deep"},"spec":` + nested(9999) + `}`
	plain := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","labels":{"b":"2","a":"1"}},"data":{"n":"1","multi":"a\nb\n","e":""},"binaryData":{"z":"AAE="}}`
	for _, tt := range []struct {
		name    string
		json    string
		tooBig  bool
		maxSize int
	}{
		{"the deepest object", deep, true, 0},
		{"an ordinary object", plain, false, 2 * len(plain)},
		// d nested maps make about d² bytes of YAML.
		{"a chain of 2000 maps", nested(2000), false, yamlBound(len(nested(2000)))},
		{"a chain of 2100 maps", nested(2100), true, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := jsonToYAML([]byte(tt.json))
			if tt.tooBig {
				if err != errYAMLTooLarge {
					t.Fatalf("got %d bytes, error %v; want %v", len(got), err, errYAMLTooLarge)
				}
				return
			}
			want, werr := yaml.JSONToYAML([]byte(tt.json))
			if err != nil || werr != nil || string(got) != string(want) {
				t.Fatalf("got %q (%v), want %q (%v)", got, err, want, werr)
			}
			if len(got) > tt.maxSize {
				t.Errorf("%d bytes of YAML for %d of JSON", len(got), len(tt.json))
			}
		})
	}
}
