package crdschema

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var validTypes = []string{"array", "boolean", "integer", "number", "object", "string"}

// openAPI applies the CRD API's rules for a single schema node, structural
// or nested: the OpenAPI features CRDs do not support and the consistency
// of the x-kubernetes extensions.
func (c *compiler) openAPI(s *apiextensionsv1.JSONSchemaProps, p *field.Path, sc scope) {
	if s.Type != "" && parseType(s.Type) == typeAny {
		c.add(field.NotSupported(p.Child("type"), s.Type, validTypes))
	}
	if s.Type == "null" {
		c.add(field.Forbidden(p.Child("type"), "type cannot be set to null, use nullable as an alternative"))
	}
	if hasDefault(s) && sc.noDefaults != "" {
		c.add(field.Forbidden(p.Child("default"), "must not be set "+sc.noDefaults))
	}
	if s.ID != "" {
		c.add(field.Forbidden(p.Child("id"), "id is not supported"))
	}
	if s.Schema != "" {
		c.add(field.Forbidden(p.Child("$schema"), "$schema is not supported"))
	}
	if s.AdditionalItems != nil {
		c.add(field.Forbidden(p.Child("additionalItems"), "additionalItems is not supported"))
	}
	if len(s.PatternProperties) != 0 {
		c.add(field.Forbidden(p.Child("patternProperties"), "patternProperties is not supported"))
	}
	if len(s.Definitions) != 0 {
		c.add(field.Forbidden(p.Child("definitions"), "definitions is not supported"))
	}
	if s.Dependencies != nil {
		c.add(field.Forbidden(p.Child("dependencies"), "dependencies is not supported"))
	}
	if s.Ref != nil {
		c.add(field.Forbidden(p.Child("$ref"), "$ref is not supported"))
	}
	if s.Items != nil && len(s.Items.JSONSchemas) != 0 {
		c.add(field.Forbidden(p.Child("items"), "items must be a schema object and not an array"))
	}
	if sc.insideMeta && s.XEmbeddedResource {
		c.add(field.Forbidden(p.Child("x-kubernetes-embedded-resource"), "must not be used inside of resource meta"))
	}
	if s.UniqueItems && !c.opts.allowUniqueItems {
		c.add(field.Forbidden(p.Child("uniqueItems"), "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"))
	}
	// properties are for structs, additionalProperties for maps; mixing
	// them would contradict the convention to ignore unknown fields.
	if ap := s.AdditionalProperties; ap != nil && len(s.Properties) != 0 && (!ap.Allows || ap.Schema != nil) {
		c.add(field.Forbidden(p.Child("additionalProperties"), "additionalProperties and properties are mutual exclusive"))
	}
	if s.XPreserveUnknownFields != nil && !*s.XPreserveUnknownFields {
		c.add(field.Invalid(p.Child("x-kubernetes-preserve-unknown-fields"), false, "must be true or undefined"))
	}
	c.mapType(s, p)
	c.listType(s, p)
}

func (c *compiler) mapType(s *apiextensionsv1.JSONSchemaProps, p *field.Path) {
	if s.XMapType == nil {
		return
	}
	if s.Type != "object" {
		if s.Type == "" {
			c.add(field.Required(p.Child("type"), "must be object if x-kubernetes-map-type is specified"))
		} else {
			c.add(field.Invalid(p.Child("type"), s.Type, "must be object if x-kubernetes-map-type is specified"))
		}
	}
	if *s.XMapType != "atomic" && *s.XMapType != "granular" {
		c.add(field.NotSupported(p.Child("x-kubernetes-map-type"), *s.XMapType, []string{"atomic", "granular"}))
	}
}

func (c *compiler) listType(s *apiextensionsv1.JSONSchemaProps, p *field.Path) {
	var items *apiextensionsv1.JSONSchemaProps
	if s.Items != nil {
		items = s.Items.Schema
	}
	lt := ""
	if s.XListType != nil {
		lt = *s.XListType
	}

	switch {
	case s.XListType != nil && s.Type != "array":
		if s.Type == "" {
			c.add(field.Required(p.Child("type"), "must be array if x-kubernetes-list-type is specified"))
		} else {
			c.add(field.Invalid(p.Child("type"), s.Type, "must be array if x-kubernetes-list-type is specified"))
		}
	case lt == "set" && items != nil:
		// Set elements are compared whole, so they must be atomic.
		const msg = "must be atomic as item of a list with x-kubernetes-list-type=set"
		switch items.Type {
		case "array":
			if items.XListType != nil && *items.XListType != "atomic" {
				c.add(field.Invalid(p.Child("items", "x-kubernetes-list-type"), *items.XListType, msg))
			}
		case "object":
			if items.XMapType == nil || *items.XMapType != "atomic" {
				var v any
				if items.XMapType != nil {
					v = *items.XMapType
				}
				c.add(field.Invalid(p.Child("items", "x-kubernetes-map-type"), v, msg))
			}
		}
	}
	if s.XListType != nil && lt != "atomic" && lt != "set" && lt != "map" {
		c.add(field.NotSupported(p.Child("x-kubernetes-list-type"), lt, []string{"atomic", "set", "map"}))
	}

	if len(s.XListMapKeys) > 0 {
		if s.XListType == nil {
			c.add(field.Required(p.Child("x-kubernetes-list-type"), "must be map if x-kubernetes-list-map-keys is non-empty"))
		} else if lt != "map" {
			c.add(field.Invalid(p.Child("x-kubernetes-list-type"), lt, "must be map if x-kubernetes-list-map-keys is non-empty"))
		}
	}

	if lt == "map" {
		if len(s.XListMapKeys) == 0 {
			c.add(field.Required(p.Child("x-kubernetes-list-map-keys"), "must not be empty if x-kubernetes-list-type is map"))
		}
		if s.Items == nil {
			c.add(field.Required(p.Child("items"), "must have a schema if x-kubernetes-list-type is map"))
		}
		if s.Items != nil && items == nil {
			c.add(field.Invalid(p.Child("items"), s.Items, "must only have a single schema if x-kubernetes-list-type is map"))
		}
		if items != nil && items.Type != "object" {
			c.add(field.Invalid(p.Child("items", "type"), items.Type, "must be object if parent array's x-kubernetes-list-type is map"))
		}
		if items != nil && items.Type == "object" {
			seen := make(map[string]bool, len(s.XListMapKeys))
			for _, k := range s.XListMapKeys {
				if ks, ok := items.Properties[k]; ok {
					if ks.Type == "array" || ks.Type == "object" {
						c.add(field.Invalid(p.Child("items", "properties").Key(k).Child("type"), ks.Type, "must be a scalar type if parent array's x-kubernetes-list-type is map"))
					}
				} else {
					c.add(field.Invalid(p.Child("x-kubernetes-list-map-keys"), s.XListMapKeys, "entries must all be names of item properties"))
				}
				if seen[k] {
					c.add(field.Invalid(p.Child("x-kubernetes-list-map-keys"), s.XListMapKeys, "must not contain duplicate entries"))
				}
				seen[k] = true
			}
		}
	}

	if items == nil || (lt != "set" && lt != "map") {
		return
	}
	// Keys of list items must always have a value, or items could not be
	// told apart.
	if items.Nullable {
		c.add(field.Forbidden(p.Child("items", "nullable"), "cannot be nullable when x-kubernetes-list-type is "+lt))
	}
	if lt != "map" {
		return
	}
	required := make(map[string]bool, len(items.Required))
	for _, r := range items.Required {
		required[r] = true
	}
	for _, k := range s.XListMapKeys {
		ks, ok := items.Properties[k]
		if !ok {
			continue
		}
		kp := p.Child("items", "properties").Key(k)
		if !required[k] && ks.Default == nil {
			c.add(field.Required(kp.Child("default"), "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property"))
		}
		if ks.Nullable {
			c.add(field.Forbidden(kp.Child("nullable"), "this property is in x-kubernetes-list-map-keys, so it cannot be nullable"))
		}
	}
}
