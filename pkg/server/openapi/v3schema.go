package openapi

import (
	"reflect"

	"k8s.io/kube-openapi/pkg/validation/spec"
)

// wrapRefs returns a definition as kube's OpenAPI v3 documents show it: a
// $ref with keywords beside it (a property's description, say) becomes an
// allOf of the bare $ref, the keywords staying outside. OpenAPI 3.0 ignores
// the siblings of a $ref, and so does kubectl explain, which would show the
// referenced type's description in place of the field's. s is not
// modified; without such refs it is returned as it is.
func wrapRefs(s *spec.Schema) *spec.Schema {
	if s == nil {
		return nil
	}
	out, changed := wrapNode(*s)
	if !changed {
		return s
	}
	return &out
}

// wrapNode wraps the refs of a copy of s and below, and reports whether
// there were any; slices and maps of s are copied before they change.
func wrapNode(s spec.Schema) (spec.Schema, bool) {
	changed := false
	if s.Ref.String() != "" {
		bare := spec.Schema{SchemaProps: spec.SchemaProps{Ref: s.Ref}}
		if !reflect.DeepEqual(s, bare) {
			s.Ref = spec.Ref{}
			s.AllOf = append([]spec.Schema{bare}, s.AllOf...)
			changed = true
		}
	}
	if s.Properties != nil {
		var props map[string]spec.Schema
		for k, p := range s.Properties {
			w, ok := wrapNode(p)
			if !ok {
				continue
			}
			if props == nil {
				props = make(map[string]spec.Schema, len(s.Properties))
				for k2, p2 := range s.Properties {
					props[k2] = p2
				}
			}
			props[k] = w
		}
		if props != nil {
			s.Properties, changed = props, true
		}
	}
	if s.Items != nil {
		items := *s.Items
		ch := false
		if items.Schema != nil {
			if w, ok := wrapNode(*items.Schema); ok {
				items.Schema, ch = &w, true
			}
		}
		if l, ok := wrapList(items.Schemas); ok {
			items.Schemas, ch = l, true
		}
		if ch {
			s.Items, changed = &items, true
		}
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		if w, ok := wrapNode(*s.AdditionalProperties.Schema); ok {
			s.AdditionalProperties, changed = &spec.SchemaOrBool{Allows: s.AdditionalProperties.Allows, Schema: &w}, true
		}
	}
	for _, l := range []*[]spec.Schema{&s.AllOf, &s.AnyOf, &s.OneOf} {
		if w, ok := wrapList(*l); ok {
			*l, changed = w, true
		}
	}
	if s.Not != nil {
		if w, ok := wrapNode(*s.Not); ok {
			s.Not, changed = &w, true
		}
	}
	return s, changed
}

func wrapList(l []spec.Schema) ([]spec.Schema, bool) {
	var out []spec.Schema
	for i := range l {
		w, ok := wrapNode(l[i])
		if !ok {
			continue
		}
		if out == nil {
			out = append([]spec.Schema(nil), l...)
		}
		out[i] = w
	}
	return out, out != nil
}
