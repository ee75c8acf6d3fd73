package registry

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestJSONPath(t *testing.T) {
	var obj map[string]any
	if err := json.Unmarshal([]byte(`{
		"metadata": {"name": "a", "labels": {"app.kubernetes.io/name": "x"}},
		"spec": {"replicas": 3, "value": "bar", "paused": false},
		"status": {"conditions": [
			{"type": "Progressing", "status": "True", "priority": 1},
			{"type": "Ready", "status": "False", "reason": "FooNotBar", "priority": 2}
		], "hosts": ["h1", "h2"]}
	}`), &obj); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want string // fmt of the matches; "none" when nothing matches
	}{
		{".spec.value", "[bar]"},
		{"spec.value", "[bar]"},
		{"{.spec.replicas}", "[3]"},
		{"$.spec.paused", "[false]"},
		{".spec.missing", "none"},
		{".status.hosts[0]", "[h1]"},
		{".status.hosts[-1]", "[h2]"},
		{".status.hosts[5]", "none"},
		{".status.hosts[*]", "[h1 h2]"},
		{".status.conditions[*].type", "[Progressing Ready]"},
		{`.status.conditions[?(@.type=="Ready")].status`, "[False]"},
		{`.status.conditions[?(@.type == 'Ready')].reason`, "[FooNotBar]"},
		{`.status.conditions[?(@.type!="Ready")].type`, "[Progressing]"},
		{`.status.conditions[?(@.priority>1)].type`, "[Ready]"},
		{`.status.conditions[?(@.priority<=1)].type`, "[Progressing]"},
		{`.status.conditions[?(@.reason)].type`, "[Ready]"},
		{`.status.conditions[?(@.type=="Gone")].status`, "none"},
		{`.metadata.labels['app.kubernetes.io/name']`, "[x]"},
		{`.metadata.labels["app.kubernetes.io/name"]`, "[x]"},
	}
	for _, tt := range tests {
		p, err := ParseJSONPath(tt.path)
		if err != nil {
			t.Errorf("ParseJSONPath(%q): %v", tt.path, err)
			continue
		}
		got := "none"
		if found := p.Find(obj); len(found) > 0 {
			got = fmt.Sprint(normalize(found))
		}
		if got != tt.want {
			t.Errorf("%s = %s, want %s", tt.path, got, tt.want)
		}
	}
}

// normalize prints JSON numbers as integers where they are.
func normalize(vs []any) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		if f, ok := v.(float64); ok && f == float64(int64(f)) {
			v = int64(f)
		}
		out[i] = v
	}
	return out
}

func TestJSONPathErrors(t *testing.T) {
	for _, path := range []string{
		".a[", ".a[?(x)]", strings.Repeat(".a[?(@", 20) + strings.Repeat(")]", 20), ".a[?(@.b ~ 1)]", ".a[?(@.b == nope)]", ".a[x]", ".a..b", `.a[?(@.b=="x)]`,
	} {
		if _, err := ParseJSONPath(path); err == nil {
			t.Errorf("ParseJSONPath(%q) succeeded", path)
		}
	}
}

func TestLookupFirstMatch(t *testing.T) {
	obj := map[string]any{"status": map[string]any{"conditions": []any{
		map[string]any{"type": "Ready", "status": "True"},
	}}}
	if v, ok := Lookup(obj, `.status.conditions[?(@.type=="Ready")].status`); !ok || v != "True" {
		t.Errorf("Lookup = %v, %v", v, ok)
	}
	if _, ok := Lookup(obj, ".status["); ok {
		t.Error("an invalid path found something")
	}
}

func FuzzJSONPath(f *testing.F) {
	for _, s := range []string{".a.b", `.s.c[?(@.t=="R")].s`, ".a[*]", ".a[-1]", "{.x}", `.l['a.b']`} {
		f.Add(s)
	}
	obj := map[string]any{"a": map[string]any{"b": []any{int64(1), "x", map[string]any{"t": "R"}}}}
	f.Fuzz(func(t *testing.T, path string) {
		p, err := ParseJSONPath(path)
		if err != nil {
			return
		}
		_ = p.Find(obj) // must not panic
	})
}
