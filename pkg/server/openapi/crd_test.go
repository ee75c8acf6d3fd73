package openapi

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/utils/ptr"
)

func TestCRDName(t *testing.T) {
	tests := []struct {
		gvk  schema.GroupVersionKind
		want string
	}{
		{schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Foo"}, "com.example.v1.Foo"},
		{schema.GroupVersionKind{Group: "stable.example.com", Version: "v1beta1", Kind: "CronTab"}, "com.example.stable.v1beta1.CronTab"},
		{schema.GroupVersionKind{Group: "cert-manager.io", Version: "v1", Kind: "Certificate"}, "io.cert-manager.v1.Certificate"},
	}
	for _, tt := range tests {
		root, _, err := ForCRD(tt.gvk, nil)
		if err != nil {
			t.Fatal(err)
		}
		if root != tt.want {
			t.Errorf("ForCRD(%v) root = %q, want %q", tt.gvk, root, tt.want)
		}
	}
	if _, _, err := ForCRD(schema.GroupVersionKind{Group: "example.com"}, nil); err == nil {
		t.Error("ForCRD accepted a kind without version and name")
	}
}

func TestForCRD(t *testing.T) {
	root, defs, err := ForCRD(widgetGVK, widgetSchema())
	if err != nil {
		t.Fatal(err)
	}
	assertClosed(t, defs)
	const w = "com.example.stable.v1.Widget"
	if root != w {
		t.Fatalf("root = %q, want %q", root, w)
	}
	if gvk := defs[meta+"ObjectMeta"].Extensions[extGVK]; gvk != nil {
		t.Errorf("ObjectMeta has x-kubernetes-group-version-kind %v", gvk)
	}
	str := func(s string) any { return s }
	tests := []struct {
		name string
		at   []string
		// got extracts what is compared.
		got  func(*spec.Schema) any
		want any
	}{
		{"gvk", nil, func(s *spec.Schema) any { return s.Extensions[extGVK] },
			[]any{map[string]any{"group": "stable.example.com", "version": "v1", "kind": "Widget"}}},
		{"description", nil, func(s *spec.Schema) any { return s.Description }, "Widget is a test kind."},
		{"metadata ref", []string{"metadata"}, func(s *spec.Schema) any { return s.Ref.String() }, refPrefix + meta + "ObjectMeta"},
		{"metadata description", []string{"metadata"}, func(s *spec.Schema) any { return s.Description },
			metav1.PartialObjectMetadata{}.SwaggerDoc()["metadata"]},
		{"apiVersion", []string{"apiVersion"}, func(s *spec.Schema) any { return s.Type }, spec.StringOrArray{"string"}},
		{"kind", []string{"kind"}, func(s *spec.Schema) any { return s.Description }, metav1.TypeMeta{}.SwaggerDoc()["kind"]},
		{"required", []string{"spec"}, func(s *spec.Schema) any { return s.Required }, []string{"size"}},
		{"default", []string{"spec", "size"}, func(s *spec.Schema) any { return s.Default }, float64(3)},
		{"format", []string{"spec", "size"}, func(s *spec.Schema) any { return s.Format }, "int32"},
		{"list type", []string{"spec", "ports"}, func(s *spec.Schema) any { return s.Extensions["x-kubernetes-list-type"] }, str("map")},
		{"list map keys", []string{"spec", "ports"}, func(s *spec.Schema) any { return s.Extensions["x-kubernetes-list-map-keys"] }, []string{"name"}},
		{"map type", []string{"spec", "labels"}, func(s *spec.Schema) any { return s.Extensions["x-kubernetes-map-type"] }, str("atomic")},
		{"int-or-string", []string{"spec", "port"}, func(s *spec.Schema) any {
			var types []string
			for _, a := range s.AnyOf {
				types = append(types, a.Type...)
			}
			return []any{s.Extensions["x-kubernetes-int-or-string"], types}
		}, []any{true, []string{"integer", "string"}}},
		{"nullable", []string{"spec", "note"}, func(s *spec.Schema) any { return s.Nullable }, true},
		{"embedded metadata", []string{"spec", "template", "metadata"}, func(s *spec.Schema) any { return s.Ref.String() }, refPrefix + meta + "ObjectMeta"},
		{"embedded required", []string{"spec", "template"}, func(s *spec.Schema) any { return s.Required }, []string{"kind", "apiVersion"}},
		{"embedded apiVersion", []string{"spec", "template", "apiVersion"}, func(s *spec.Schema) any { return s.Description },
			"apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"},
		{"embedded kind", []string{"spec", "template", "kind"}, func(s *spec.Schema) any { return s.Description },
			"kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"},
		{"embedded metadata description", []string{"spec", "template", "metadata"}, func(s *spec.Schema) any { return s.Description },
			"Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"},
		{"preserve", []string{"spec", "extra"}, func(s *spec.Schema) any { return s.Extensions[extPreserveUnknown] }, true},
	}
	for _, tt := range tests {
		s := prop{w, tt.at}.get(defs)
		if s == nil {
			t.Errorf("%s: %v missing", tt.name, tt.at)
			continue
		}
		if got := tt.got(s); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %#v, want %#v", tt.name, got, tt.want)
		}
	}
}

func TestForCRDWithoutSchema(t *testing.T) {
	root, defs, err := ForCRD(widgetGVK, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := defs[root]
	metadata := s.Properties["metadata"]
	if v, _ := s.Extensions.GetBool(extPreserveUnknown); !v || metadata.Ref.String() == "" {
		t.Errorf("schema-less kind = %+v; want an object preserving unknown fields, with metadata", s)
	}
	if v2 := toV2(s); len(v2.Properties) != 0 || !reflect.DeepEqual(v2.Type, spec.StringOrArray{"object"}) || v2.Extensions[extGVK] == nil {
		t.Errorf("v2 form of a schema-less kind = %+v; want a bare object with its GVK", v2)
	}
}

// TestToV2PreservingRoot: a kind whose schema preserves unknown fields at
// its root is published in v2 as kube does, a bare object with its GVK and
// nothing else; v3 keeps the schema.
func TestToV2PreservingRoot(t *testing.T) {
	root, defs, err := ForCRD(widgetGVK, &apiextensionsv1.JSONSchemaProps{
		Type: "object", Description: "Widget is a test kind.", XPreserveUnknownFields: ptr.To(true),
		Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": {Type: "object"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(toV2(defs[root]))
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"type":"object","x-kubernetes-group-version-kind":[{"group":"stable.example.com","kind":"Widget","version":"v1"}]}`
	if string(got) != want {
		t.Errorf("v2 form:\n got %s\nwant %s", got, want)
	}
	v3 := defs[root]
	if v, _ := v3.Extensions.GetBool(extPreserveUnknown); !v || v3.Description == "" || v3.Properties["spec"].Type[0] != "object" {
		t.Errorf("v3 form lost the schema: %+v", v3)
	}
}

func TestToV2(t *testing.T) {
	_, defs, err := ForCRD(widgetGVK, widgetSchema())
	if err != nil {
		t.Fatal(err)
	}
	const w = "com.example.stable.v1.Widget"
	v2 := map[string]*spec.Schema{w: toV2(defs[w])}
	if v2[w] == defs[w] {
		t.Fatal("toV2 returned the v3 form unchanged")
	}
	tests := []struct {
		name string
		at   []string
		ok   func(*spec.Schema) bool
	}{
		{"anyOf dropped", []string{"spec", "port"}, func(s *spec.Schema) bool { return s.AnyOf == nil }},
		{"nullable dropped", []string{"spec", "note"}, func(s *spec.Schema) bool { return !s.Nullable && len(s.Type) == 0 }},
		{"preserve drops properties", []string{"spec", "template"}, func(s *spec.Schema) bool { return s.Properties == nil && len(s.Type) == 0 }},
		// kube adds kind and apiVersion to an embedded resource's required
		// fields in v2 only where it also adds the properties
		{"embedded preserving resource keeps only its own required", []string{"spec", "template"}, func(s *spec.Schema) bool { return s.Required == nil }},
		{"others kept", []string{"spec", "ports"}, func(s *spec.Schema) bool { return s.Extensions["x-kubernetes-list-type"] == "map" && s.Items != nil }},
	}
	for _, tt := range tests {
		if s := (prop{w, tt.at}).get(v2); s == nil || !tt.ok(s) {
			t.Errorf("%s: v2 form at %v is %+v", tt.name, tt.at, s)
		}
	}
	if s := (prop{w, []string{"spec", "port"}}).get(defs); len(s.AnyOf) != 2 {
		t.Error("toV2 modified the definition it was given")
	}
	if s := (prop{w, []string{"spec", "template"}}).get(defs); !slices.Equal(s.Required, []string{"kind", "apiVersion"}) {
		t.Errorf("v3 form of the embedded resource requires %v", s.Required)
	}
	_, builtin, _ := ForType(configMapGVK, &metav1.ObjectMeta{})
	for name, s := range builtin {
		if toV2(s) != s {
			t.Errorf("toV2 changed built-in definition %s", name)
		}
	}
}

func TestForCRDKeepsValidations(t *testing.T) {
	props := &apiextensionsv1.JSONSchemaProps{Type: "object", XValidations: apiextensionsv1.ValidationRules{{Rule: "self.a > 0"}}}
	root, defs, err := ForCRD(widgetGVK, props)
	if err != nil {
		t.Fatal(err)
	}
	rules, ok := defs[root].Extensions["x-kubernetes-validations"].(apiextensionsv1.ValidationRules)
	if !ok || len(rules) != 1 || rules[0].Rule != "self.a > 0" {
		t.Errorf("x-kubernetes-validations = %#v", defs[root].Extensions["x-kubernetes-validations"])
	}
	props.XValidations[0].Rule = "changed"
	if rules[0].Rule != "self.a > 0" {
		t.Error("the definition shares the CRD's validation rules")
	}
}

// TestToV2EmbeddedRequired: in v2, an embedded resource that preserves
// unknown fields requires what its schema says, nothing added; one that
// does not preserve them gets kind and apiVersion as in v3.
func TestToV2EmbeddedRequired(t *testing.T) {
	obj := func(embedded, preserve bool, required ...string) apiextensionsv1.JSONSchemaProps {
		p := apiextensionsv1.JSONSchemaProps{Type: "object", XEmbeddedResource: embedded, Required: required}
		if preserve {
			p.XPreserveUnknownFields = ptr.To(true)
		} else {
			p.Properties = map[string]apiextensionsv1.JSONSchemaProps{"x": {Type: "string"}}
		}
		return p
	}
	list := apiextensionsv1.JSONSchemaProps{Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: ptr.To(obj(true, true, "kind"))}}
	root, defs, err := ForCRD(widgetGVK, &apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
		"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"none": obj(true, true), "own": obj(true, true, "kind"), "typed": obj(true, false), "list": list,
		}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	v2 := map[string]*spec.Schema{root: toV2(defs[root])}
	for _, tt := range []struct {
		at   []string
		want []string
	}{
		{[]string{"spec", "none"}, nil},
		{[]string{"spec", "own"}, []string{"kind"}},
		{[]string{"spec", "typed"}, []string{"kind", "apiVersion"}},
	} {
		if s := (prop{root, tt.at}).get(v2); s == nil || !slices.Equal(s.Required, tt.want) {
			t.Errorf("v2 %v: %+v, want required %q", tt.at, s, tt.want)
		}
	}
	if l := (prop{root, []string{"spec", "list"}}).get(v2); l == nil || l.Items == nil || !slices.Equal(l.Items.Schema.Required, []string{"kind"}) {
		t.Errorf("v2 list item: %+v", l)
	}
	if s := (prop{root, []string{"spec", "none"}}).get(defs); !slices.Equal(s.Required, []string{"kind", "apiVersion"}) {
		t.Errorf("v3 form requires %v", s.Required)
	}
	if toV2(defs[root]) != v2[root] {
		t.Error("the v2 form is made again on each use")
	}
}
