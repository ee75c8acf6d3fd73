package cel

import (
	"reflect"
	"testing"
	"time"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"github.com/setpoint-dev/setpoint/pkg/server/crdschema"
)

func TestEscapeName(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"foo", "foo", true},
		{"foo_bar", "foo_bar", true},
		{"foo__bar", "foo__underscores__bar", true},
		{"foo___bar", "foo__underscores___bar", true},
		{"x-y.z/w", "x__dash__y__dot__z__slash__w", true},
		{"namespace", "__namespace__", true},
		{"in", "__in__", true},
		{"", "", false},
		{"1abc", "", false},
		{"a b", "", false},
		{"ü", "", false},
	}
	for _, tc := range tests {
		got, ok := escapeName(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("escapeName(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParseFieldPath(t *testing.T) {
	s := crdschema.Unchecked(schema(t, `{"type":"object","properties":{"a":{"type":"object","properties":{"b.c":{"type":"string"},"d":{"type":"string"}}},"m":{"type":"object","additionalProperties":{"type":"object","properties":{"x":{"type":"string"}}}},"l":{"type":"array","items":{"type":"string"}}}}`)).Root()
	tests := []struct {
		in, want, err string
	}{
		{in: ".a", want: "a"},
		{in: ".a.d", want: "a.d"},
		{in: ".a['b.c']", want: "a.b.c"},
		{in: "['a']['d']", want: "a.d"},
		{in: ".m['k'].x", want: "m[k].x"},
		{in: ".m.k", want: "m[k]"},
		{in: `.a['it\'s']`, err: "does not refer to a valid field"},
		{in: ".nope", err: "does not refer to a valid field"},
		{in: ".l.x", err: "does not refer to a valid field"},
		{in: "a", err: "expected [ or . but got: a"},
		{in: ".a[d]", err: "expected single quoted string but got d"},
		{in: ".a['d'", err: "unexpected end of JSON path"},
		{in: ".a.", err: "unexpected end of JSON path"},
		{in: `.a['\q']`, err: `invalid string literal: invalid escape char \q`},
	}
	for _, tc := range tests {
		p, err := parseFieldPath(tc.in, s)
		switch {
		case tc.err != "":
			if err == nil || err.Error() != tc.err {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.in, err)
		case p.String() != tc.want:
			t.Errorf("%q = %q, want %q", tc.in, p.String(), tc.want)
		}
	}
}

func TestFormats(t *testing.T) {
	durations := map[string]time.Duration{
		"1h30m":       90 * time.Minute,
		"3d":          72 * time.Hour,
		"2 weeks":     14 * 24 * time.Hour,
		"1 hour 5min": 65 * time.Minute,
		"10 seconds":  10 * time.Second,
	}
	for in, want := range durations {
		if got, err := parseDuration(in); err != nil || got != want {
			t.Errorf("parseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := parseDuration("soon"); err == nil {
		t.Error("parseDuration(soon) succeeded")
	}
	times := map[string]time.Time{
		"2024-01-02T03:04:05Z":           time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC),
		"2024-01-02T03:04:05.123456789Z": time.Date(2024, 1, 2, 3, 4, 5, 123456789, time.UTC),
		"2024-01-02T03:04:05":            time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC),
		"":                               time.Unix(0, 0).UTC(),
	}
	for in, want := range times {
		if got, err := parseDateTime(in); err != nil || !got.Equal(want) {
			t.Errorf("parseDateTime(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := parseDateTime("2024-13-01T00:00:00Z"); err == nil {
		t.Error("bad month accepted")
	}
}

func TestValues(t *testing.T) {
	var b typeBuilder
	s := schema(t, `{"type":"object","properties":{
		"n":{"type":"number"},"i":{"type":"integer"},"s":{"type":"string"},"b":{"type":"boolean"},
		"set":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"integer"}},
		"ml":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k1","k2"],"items":{"type":"object","properties":{"k1":{"type":"string"},"k2":{"type":"integer"},"v":{"type":"string"}}}},
		"m":{"type":"object","additionalProperties":{"type":"string"}},
		"strs":{"type":"array","items":{"type":"string"}}}}`)
	root := b.build(crdschema.Unchecked(s).Root(), false, "t")
	obj := object(t, `{"n":1,"i":2,"s":"x","b":true,"set":[1,2,3],"ml":[{"k1":"a","k2":1,"v":"x"},{"k1":"a","k2":2,"v":"y"}],"m":{"a":"1"},"strs":["a","b"]}`)
	self := root.toVal(obj).(*objectVal)
	get := func(name string) ref.Val { return self.Get(types.String(name)) }

	if got := get("n"); got != types.Double(1) {
		t.Errorf("number from int64 = %v (%T)", got, got)
	}
	if got := get("nope"); !types.IsError(got) {
		t.Errorf("undeclared field = %v", got)
	}
	// sets: order does not matter, + is a union
	set := get("set")
	other := types.NewDynamicList(types.DefaultTypeAdapter, []int64{3, 1, 2})
	if set.Equal(other) != types.True {
		t.Error("set != permutation")
	}
	union := set.(*listVal).Add(types.NewDynamicList(types.DefaultTypeAdapter, []int64{2, 4}))
	if union.Equal(types.NewDynamicList(types.DefaultTypeAdapter, []int64{1, 2, 3, 4})) != types.True {
		t.Errorf("set union = %v", union)
	}
	// map lists: keyed by both keys, + merges by key
	ml := get("ml").(*listVal)
	swapped := root.field("ml").t.toVal(object(t, `{"l":[{"k1":"a","k2":2,"v":"y"},{"k1":"a","k2":1,"v":"x"}]}`)["l"])
	if ml.Equal(swapped) != types.True {
		t.Error("map list != permutation")
	}
	changed := root.field("ml").t.toVal(object(t, `{"l":[{"k1":"a","k2":2,"v":"z"},{"k1":"a","k2":1,"v":"x"}]}`)["l"])
	if ml.Equal(changed) != types.False {
		t.Error("map list == changed")
	}
	merged := ml.Add(changed)
	if n := merged.(interface{ Size() ref.Val }).Size(); n != types.Int(2) {
		t.Errorf("merged map list has %v items", n)
	}
	// conversions to native types for functions taking them
	strs, err := get("strs").ConvertToNative(reflect.TypeOf([]string{}))
	if err != nil || !reflect.DeepEqual(strs, []string{"a", "b"}) {
		t.Errorf("[]string conversion = %v, %v", strs, err)
	}
	m, err := get("m").ConvertToNative(reflect.TypeOf(map[string]string{}))
	if err != nil || !reflect.DeepEqual(m, map[string]string{"a": "1"}) {
		t.Errorf("map[string]string conversion = %v, %v", m, err)
	}
	// objects iterate over their set, declared fields
	n := 0
	for it := self.Iterator(); it.HasNext() == types.True; it.Next() {
		n++
	}
	if n != 8 {
		t.Errorf("iterated %d fields", n)
	}
}

func TestCorrelator(t *testing.T) {
	old := object(t, `{"l":[{"a":"x","b":1,"v":1},{"a":"x","b":2,"v":2},{"a":"y","b":1,"v":3},"junk",{"a":"z"}]}`)["l"].([]any)
	c := crdschema.NewMapListMatcher([]string{"a", "b"}, old)
	find := func(item string) any { return c.Match(object(t, item)) }
	if got := find(`{"a":"y","b":1}`); got.(map[string]any)["v"] != int64(3) {
		t.Errorf("got %v", got)
	}
	if got := find(`{"a":"x","b":1}`); got.(map[string]any)["v"] != int64(1) {
		t.Errorf("got %v", got)
	}
	if got := find(`{"a":"x","b":3}`); got != nil {
		t.Errorf("got %v", got)
	}
	if got := find(`{"a":"z"}`); got != nil {
		t.Errorf("item without all keys matched %v", got)
	}
}
