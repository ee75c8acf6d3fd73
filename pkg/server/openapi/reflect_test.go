package openapi

import (
	"maps"
	"reflect"
	"slices"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// oddKind has a field of each type with a special description.
type oddKind struct {
	metav1.TypeMeta `json:",inline"`
	Port            intstr.IntOrString   `json:"port"`
	Memory          resource.Quantity    `json:"memory,omitempty"`
	Raw             runtime.RawExtension `json:"raw,omitempty"`
	Bytes           []byte               `json:"bytes,omitempty"`
	Every           metav1.Duration      `json:"every,omitempty"`
	Counts          map[string]int64     `json:"counts,omitempty"`
	Ratio           float64              `json:"ratio,omitempty"`
	Ignored         string               `json:"-"`
}

// prop is a property of a definition, looked up by path: "defname", "prop", ...
type prop struct {
	def  string
	path []string
}

func (p prop) get(defs map[string]*spec.Schema) *spec.Schema {
	s := defs[p.def]
	for _, name := range p.path {
		if s == nil {
			return nil
		}
		switch name {
		case "[]":
			if s.Items == nil {
				return nil
			}
			s = s.Items.Schema
		case "{}":
			if s.AdditionalProperties == nil {
				return nil
			}
			s = s.AdditionalProperties.Schema
		default:
			p, ok := s.Properties[name]
			if !ok {
				return nil
			}
			s = &p
		}
	}
	return s
}

func TestForType(t *testing.T) {
	const (
		cm       = core + "ConfigMap"
		om       = meta + "ObjectMeta"
		ns       = core + "Namespace"
		nsSpec   = core + "NamespaceSpec"
		nsStatus = core + "NamespaceStatus"
		lease    = "io.k8s.api.coordination.v1.LeaseSpec"
		event    = core + "Event"
		crd      = apiext + "CustomResourceDefinition"
		props    = apiext + "JSONSchemaProps"
		odd      = "com.github.setpoint-dev.setpoint.pkg.server.openapi.oddKind"
	)
	type check struct {
		at prop
		// want* are compared when set.
		typ, format, ref, description string
		ext                           map[string]any
		required                      []string
		noRequired                    bool
	}
	tests := []struct {
		name     string
		gvk      schema.GroupVersionKind
		obj      any
		wantRoot string
		checks   []check
	}{{
		name: "ConfigMap", gvk: configMapGVK, obj: &corev1.ConfigMap{}, wantRoot: cm,
		checks: []check{
			{at: prop{cm, nil}, typ: "object", description: corev1.ConfigMap{}.SwaggerDoc()[""],
				ext: map[string]any{extGVK: []any{map[string]any{"group": "", "version": "v1", "kind": "ConfigMap"}}}},
			{at: prop{cm, []string{"apiVersion"}}, typ: "string", description: metav1.TypeMeta{}.SwaggerDoc()["apiVersion"]},
			{at: prop{cm, []string{"metadata"}}, ref: refPrefix + om, description: corev1.ConfigMap{}.SwaggerDoc()["metadata"]},
			{at: prop{cm, []string{"data", "{}"}}, typ: "string"},
			{at: prop{cm, []string{"binaryData", "{}"}}, typ: "string", format: "byte"},
			{at: prop{cm, []string{"immutable"}}, typ: "boolean"},
			{at: prop{om, []string{"ownerReferences"}}, typ: "array", ext: map[string]any{
				"x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "uid",
				"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"uid"}}},
			{at: prop{om, []string{"ownerReferences", "[]"}}, ref: refPrefix + meta + "OwnerReference"},
			{at: prop{meta + "OwnerReference", nil}, ext: map[string]any{"x-kubernetes-map-type": "atomic"}, required: []string{"apiVersion", "kind", "name", "uid"}},
			{at: prop{om, []string{"finalizers"}}, ext: map[string]any{"x-kubernetes-patch-strategy": "merge", "x-kubernetes-list-type": "set"}},
			{at: prop{om, []string{"managedFields"}}, ext: map[string]any{"x-kubernetes-list-type": "atomic"}},
			{at: prop{om, []string{"creationTimestamp"}}, ref: refPrefix + meta + "Time"},
			{at: prop{meta + "Time", nil}, typ: "string", format: "date-time"},
			{at: prop{om, []string{"generation"}}, typ: "integer", format: "int64"},
			{at: prop{meta + "ManagedFieldsEntry", []string{"fieldsV1"}}, ref: refPrefix + meta + "FieldsV1"},
			{at: prop{meta + "FieldsV1", nil}, typ: "object"},
		},
	}, {
		name: "Namespace", gvk: namespaceGVK, obj: &corev1.Namespace{}, wantRoot: ns,
		checks: []check{
			{at: prop{ns, []string{"spec"}}, ref: refPrefix + nsSpec},
			{at: prop{nsSpec, []string{"finalizers"}}, typ: "array", ext: map[string]any{"x-kubernetes-list-type": "atomic"}},
			{at: prop{nsStatus, []string{"conditions"}}, ext: map[string]any{
				"x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "type",
				"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"type"}}},
			{at: prop{core + "NamespaceCondition", nil}, required: []string{"type", "status"}},
		},
	}, {
		name: "Lease", gvk: leaseGVK, obj: &coordinationv1.Lease{}, wantRoot: "io.k8s.api.coordination.v1.Lease",
		checks: []check{
			{at: prop{lease, []string{"leaseDurationSeconds"}}, typ: "integer", format: "int32"},
			{at: prop{lease, []string{"acquireTime"}}, ref: refPrefix + meta + "MicroTime"},
			{at: prop{meta + "MicroTime", nil}, typ: "string", format: "date-time"},
		},
	}, {
		name: "Event", gvk: schema.GroupVersionKind{Version: "v1", Kind: "Event"}, obj: &corev1.Event{}, wantRoot: event,
		checks: []check{
			{at: prop{event, nil}, required: []string{"metadata", "involvedObject"}},
			{at: prop{event, []string{"involvedObject"}}, ref: refPrefix + core + "ObjectReference"},
			{at: prop{core + "ObjectReference", nil}, ext: map[string]any{"x-kubernetes-map-type": "atomic"}},
			{at: prop{event, []string{"series"}}, ref: refPrefix + core + "EventSeries"},
			{at: prop{event, []string{"count"}}, typ: "integer", format: "int32"},
		},
	}, {
		name: "CRD", gvk: schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"},
		obj: &apiextensionsv1.CustomResourceDefinition{}, wantRoot: crd,
		checks: []check{
			{at: prop{crd, nil}, required: []string{"spec"}},
			{at: prop{apiext + "CustomResourceDefinitionStatus", nil}, noRequired: true},
			{at: prop{apiext + "CustomResourceDefinitionStatus", []string{"conditions"}}, ext: map[string]any{"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"type"}}},
			{at: prop{props, []string{"properties", "{}"}}, ref: refPrefix + props},
			{at: prop{props, []string{"x-kubernetes-validations"}}, ext: map[string]any{
				"x-kubernetes-patch-strategy": "merge", "x-kubernetes-patch-merge-key": "rule",
				"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"rule"}}},
			{at: prop{props, []string{"default"}}, ref: refPrefix + apiext + "JSON"},
			{at: prop{apiext + "JSON", nil}, typ: "", description: typeDocs[apiext+"JSON"]},
			{at: prop{apiext + "CustomResourceDefinitionNames", nil}, required: []string{"plural", "kind"}},
		},
	}, {
		name: "special types", gvk: schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Odd"}, obj: &oddKind{}, wantRoot: odd,
		checks: []check{
			{at: prop{odd, nil}, required: []string{"port"}},
			{at: prop{odd, []string{"port"}}, ref: refPrefix + "io.k8s.apimachinery.pkg.util.intstr.IntOrString"},
			{at: prop{"io.k8s.apimachinery.pkg.util.intstr.IntOrString", nil}, typ: "string", format: "int-or-string"},
			{at: prop{"io.k8s.apimachinery.pkg.api.resource.Quantity", nil}, typ: "string"},
			{at: prop{"io.k8s.apimachinery.pkg.runtime.RawExtension", nil}, typ: "object"},
			{at: prop{meta + "Duration", nil}, typ: "string"},
			{at: prop{odd, []string{"bytes"}}, typ: "string", format: "byte"},
			{at: prop{odd, []string{"counts", "{}"}}, typ: "integer", format: "int64"},
			{at: prop{odd, []string{"ratio"}}, typ: "number", format: "double"},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, defs, err := ForType(tt.gvk, tt.obj)
			if err != nil {
				t.Fatal(err)
			}
			if root != tt.wantRoot {
				t.Errorf("root = %q, want %q", root, tt.wantRoot)
			}
			assertClosed(t, defs)
			for _, c := range tt.checks {
				s := c.at.get(defs)
				if s == nil {
					t.Errorf("%v: missing", c.at)
					continue
				}
				var typ string
				if len(s.Type) > 0 {
					typ = s.Type[0]
				}
				if c.typ != "" || c.ref == "" && c.ext == nil && c.required == nil && !c.noRequired && c.description == "" {
					if typ != c.typ {
						t.Errorf("%v: type = %q, want %q", c.at, typ, c.typ)
					}
				}
				if c.format != "" && s.Format != c.format {
					t.Errorf("%v: format = %q, want %q", c.at, s.Format, c.format)
				}
				if got := s.Ref.String(); c.ref != "" && got != c.ref {
					t.Errorf("%v: $ref = %q, want %q", c.at, got, c.ref)
				}
				if c.description != "" && s.Description != c.description {
					t.Errorf("%v: description = %q, want %q", c.at, s.Description, c.description)
				}
				for k, want := range c.ext {
					if got := s.Extensions[k]; !reflect.DeepEqual(got, want) {
						t.Errorf("%v: %s = %#v, want %#v", c.at, k, got, want)
					}
				}
				if c.noRequired && len(s.Required) > 0 {
					t.Errorf("%v: required = %q, want none", c.at, s.Required)
				}
				if c.required != nil && !reflect.DeepEqual(s.Required, c.required) {
					t.Errorf("%v: required = %q, want %q", c.at, s.Required, c.required)
				}
			}
		})
	}
}

// assertClosed checks every reference in defs names a definition in defs.
func assertClosed(t *testing.T, defs map[string]*spec.Schema) {
	t.Helper()
	for name, s := range defs {
		walkRefs(s, func(ref string) {
			if defs[ref] == nil {
				t.Errorf("%s refers to %s, which is missing", name, ref)
			}
		})
	}
}

func TestForTypeFields(t *testing.T) {
	root, defs, err := ForType(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Odd"}, &oddKind{})
	if err != nil {
		t.Fatal(err)
	}
	got := slices.Sorted(maps.Keys(defs[root].Properties))
	want := []string{"apiVersion", "bytes", "counts", "every", "kind", "memory", "port", "ratio", "raw"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("properties = %q, want %q (inlined TypeMeta, no json:\"-\" field)", got, want)
	}
	// A SwaggerDoc promoted from the embedded TypeMeta does not describe oddKind.
	if d := defs[root].Description; d != "" {
		t.Errorf("description = %q, want none", d)
	}
}

func TestForTypeSharesDefinitions(t *testing.T) {
	_, a, _ := ForType(configMapGVK, &corev1.ConfigMap{})
	_, b, _ := ForType(leaseGVK, &coordinationv1.Lease{})
	if a[meta+"ObjectMeta"] != b[meta+"ObjectMeta"] {
		t.Error("ObjectMeta is built twice; want one shared definition")
	}
	_, c, _ := ForType(configMapGVK, &corev1.ConfigMap{})
	if a[core+"ConfigMap"] != c[core+"ConfigMap"] {
		t.Error("a kind's definition is rebuilt on each call")
	}
	if _, _, err := ForType(configMapGVK, "not a struct"); err == nil {
		t.Error("ForType accepted a string")
	}
}

func TestV3FormOfIntOrString(t *testing.T) {
	_, defs, _ := ForType(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Odd"}, &oddKind{})
	got := v3Form(defs["io.k8s.apimachinery.pkg.util.intstr.IntOrString"])
	var types []string
	for _, o := range got.OneOf {
		types = append(types, o.Type...)
	}
	if want := []string{"integer", "string"}; !reflect.DeepEqual(types, want) || got.Format != "int-or-string" || len(got.Type) != 0 {
		t.Errorf("v3 IntOrString = type %v format %q oneOf %v; want no type, int-or-string, oneOf %v", got.Type, got.Format, types, want)
	}
}
