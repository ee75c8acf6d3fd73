package openapi

import (
	"slices"

	"k8s.io/kube-openapi/pkg/validation/spec"
)

// toV2 returns the form of a definition in the OpenAPI v2 document, where
// kube strips from CRD schemas what Swagger 2.0 (and kubectl's client-side
// validation) cannot express: allOf/anyOf/oneOf/not and nullable, and the
// properties of nodes that preserve unknown fields. A kind that preserves
// unknown fields at its root is a bare object with only its kind, without
// description or x-kubernetes-preserve-unknown-fields, as kube publishes
// it: anything more would make kubectl's v2 validation refuse the unknown
// fields. Definitions that need no change, such as all built-in ones, are
// returned as they are.
func toV2(s *spec.Schema) *spec.Schema {
	if v2, ok := recordedV2Form(s); ok {
		return v2
	}
	if !needsV2(s) {
		return s
	}
	if preservesUnknown(s) && s.Extensions[extGVK] != nil {
		root := &spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}}}
		root.Extensions = spec.Extensions{extGVK: s.Extensions[extGVK]}
		return root
	}
	out := v2Node(*s)
	return &out
}

func preservesUnknown(s *spec.Schema) bool {
	v, _ := s.Extensions.GetBool(extPreserveUnknown)
	return v
}

// needsV2 reports whether toV2 would change s.
func needsV2(s *spec.Schema) bool {
	if s == nil {
		return false
	}
	if len(s.AllOf)+len(s.AnyOf)+len(s.OneOf) > 0 || s.Not != nil || s.Nullable || preservesUnknown(s) {
		return true
	}
	if len(s.Type) == 1 && s.Type[0] == "array" && s.Items == nil {
		return true
	}
	for k := range s.Properties {
		p := s.Properties[k]
		if needsV2(&p) {
			return true
		}
	}
	if s.Items != nil && needsV2(s.Items.Schema) {
		return true
	}
	return s.AdditionalProperties != nil && needsV2(s.AdditionalProperties.Schema)
}

// v2Node converts one schema node and, recursively, its children.
func v2Node(s spec.Schema) spec.Schema {
	s.AllOf, s.AnyOf, s.OneOf, s.Not = nil, nil, nil, nil
	// Nullable children cannot be required in v2, where null is no value.
	for name, p := range s.Properties {
		if p.Nullable && slices.Contains(s.Required, name) {
			s.Required = slices.DeleteFunc(slices.Clone(s.Required), func(r string) bool { return r == name })
		}
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil && s.AdditionalProperties.Schema.Nullable {
		s.Required = nil
	}
	if s.Nullable {
		s.Type, s.Nullable, s.Items, s.Properties = nil, false, nil, nil
	}
	preserve := preservesUnknown(&s)
	if preserve {
		s.Items, s.Properties = nil, nil
	}
	if len(s.Type) == 1 && (s.Type[0] == "array" && s.Items == nil || s.Type[0] == "object" && preserve) {
		s.Type = nil
	}
	if s.Properties != nil {
		props := make(map[string]spec.Schema, len(s.Properties))
		for k, p := range s.Properties {
			props[k] = v2Node(p)
		}
		s.Properties = props
	}
	if s.Items != nil && s.Items.Schema != nil {
		item := v2Node(*s.Items.Schema)
		s.Items = &spec.SchemaOrArray{Schema: &item}
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		ap := v2Node(*s.AdditionalProperties.Schema)
		s.AdditionalProperties = &spec.SchemaOrBool{Allows: true, Schema: &ap}
	}
	return s
}
