package openapi

import (
	"encoding/json"
	"fmt"
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// ForCRD builds a custom kind's definition from a CRD version's schema,
// named as kube names it (example.com/v1 Foo is com.example.v1.Foo), with
// apiVersion, kind and metadata (a reference to ObjectMeta) filled in and
// x-kubernetes-group-version-kind. The schema keeps its descriptions,
// defaults and x-kubernetes-* extensions; x-kubernetes-int-or-string gains
// the anyOf kube's OpenAPI v3 documents show. defs holds the definition
// and ObjectMeta with everything it references. props may be nil: the
// kind then preserves unknown fields.
func ForCRD(gvk schema.GroupVersionKind, props *apiextensionsv1.JSONSchemaProps) (root string, defs map[string]*spec.Schema, err error) {
	if gvk.Kind == "" || gvk.Version == "" {
		return "", nil, fmt.Errorf("openapi: incomplete kind %v", gvk)
	}
	s := &spec.Schema{}
	if props == nil {
		s.Type = []string{"object"}
		s.AddExtension(extPreserveUnknown, true)
	} else if *s, err = convertProps(props); err != nil {
		return "", nil, fmt.Errorf("openapi: schema of %v: %w", gvk, err)
	}
	if len(s.Type) == 0 {
		s.Type = []string{"object"}
	}
	addKubeNative(s, typeMetaDocs["apiVersion"], typeMetaDocs["kind"])
	s.AddExtension(extGVK, []any{map[string]any{"group": gvk.Group, "version": gvk.Version, "kind": gvk.Kind}})

	_, defs, err = ForType(schema.GroupVersionKind{}, &metav1.ObjectMeta{})
	if err != nil {
		return "", nil, err
	}
	root = crdName(gvk.Group, gvk.Version, gvk.Kind)
	defs[root] = s
	if v2 := toV2(s); v2 != s && embeddedRequiredV2(v2, props) {
		setV2Form(s, v2)
	}
	return root, defs, nil
}

const (
	extGVK             = "x-kubernetes-group-version-kind"
	extPreserveUnknown = "x-kubernetes-preserve-unknown-fields"
)

var (
	typeMetaDocs = metav1.TypeMeta{}.SwaggerDoc()
	metadataDoc  = metav1.PartialObjectMetadata{}.SwaggerDoc()["metadata"]
	objectMeta   = meta + "ObjectMeta"
)

// Descriptions kube gives apiVersion and kind of embedded resources
// (x-kubernetes-embedded-resource), which differ from TypeMeta's.
const (
	embeddedAPIVersionDoc = "apiVersion defines the versioned schema of this representation of an object. " +
		"More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"
	embeddedKindDoc = "kind is a string value representing the type of this object. In CamelCase. " +
		"More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
)

// addKubeNative gives an object schema the properties every Kubernetes
// object has: apiVersion, kind (described by apiVersionDoc and kindDoc)
// and metadata.
func addKubeNative(s *spec.Schema, apiVersionDoc, kindDoc string) {
	if s.Properties == nil {
		s.Properties = map[string]spec.Schema{}
	}
	s.Properties["apiVersion"] = spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"string"}, Description: apiVersionDoc}}
	s.Properties["kind"] = spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"string"}, Description: kindDoc}}
	s.Properties["metadata"] = spec.Schema{SchemaProps: spec.SchemaProps{Ref: spec.MustCreateRef(refPrefix + objectMeta), Description: metadataDoc}}
}

// convertProps converts a CRD schema node to the OpenAPI schema kube
// publishes for it. Keywords structural schemas forbid ($ref, definitions,
// dependencies, patternProperties, additionalItems, id, $schema) are
// dropped.
func convertProps(p *apiextensionsv1.JSONSchemaProps) (spec.Schema, error) {
	var s spec.Schema
	var err error
	if p.Type != "" {
		s.Type = []string{p.Type}
	}
	s.Description, s.Format, s.Title, s.Pattern = p.Description, p.Format, p.Title, p.Pattern
	s.Nullable = p.Nullable
	s.Maximum, s.ExclusiveMaximum = p.Maximum, p.ExclusiveMaximum
	s.Minimum, s.ExclusiveMinimum = p.Minimum, p.ExclusiveMinimum
	s.MaxLength, s.MinLength = p.MaxLength, p.MinLength
	s.MaxItems, s.MinItems, s.UniqueItems = p.MaxItems, p.MinItems, p.UniqueItems
	s.MultipleOf = p.MultipleOf
	s.MaxProperties, s.MinProperties = p.MaxProperties, p.MinProperties
	s.Required = slices.Clone(p.Required)
	if s.Default, err = jsonValue(p.Default); err != nil {
		return s, fmt.Errorf("default: %w", err)
	}
	if s.Example, err = jsonValue(p.Example); err != nil {
		return s, fmt.Errorf("example: %w", err)
	}
	for i := range p.Enum {
		v, err := jsonValue(&p.Enum[i])
		if err != nil {
			return s, fmt.Errorf("enum: %w", err)
		}
		s.Enum = append(s.Enum, v)
	}
	if p.ExternalDocs != nil {
		s.ExternalDocs = &spec.ExternalDocumentation{Description: p.ExternalDocs.Description, URL: p.ExternalDocs.URL}
	}
	if p.Items != nil {
		s.Items = &spec.SchemaOrArray{}
		if p.Items.Schema != nil {
			item, err := convertProps(p.Items.Schema)
			if err != nil {
				return s, err
			}
			s.Items.Schema = &item
		}
		if s.Items.Schemas, err = convertAll(p.Items.JSONSchemas); err != nil {
			return s, err
		}
	}
	if p.Properties != nil {
		s.Properties = make(map[string]spec.Schema, len(p.Properties))
		for k, v := range p.Properties {
			if s.Properties[k], err = convertProps(&v); err != nil {
				return s, fmt.Errorf("%s: %w", k, err)
			}
		}
	}
	if p.AdditionalProperties != nil {
		s.AdditionalProperties = &spec.SchemaOrBool{Allows: p.AdditionalProperties.Allows}
		if p.AdditionalProperties.Schema != nil {
			ap, err := convertProps(p.AdditionalProperties.Schema)
			if err != nil {
				return s, err
			}
			s.AdditionalProperties = &spec.SchemaOrBool{Allows: true, Schema: &ap}
		}
	}
	if s.AllOf, err = convertAll(p.AllOf); err != nil {
		return s, err
	}
	if s.AnyOf, err = convertAll(p.AnyOf); err != nil {
		return s, err
	}
	if s.OneOf, err = convertAll(p.OneOf); err != nil {
		return s, err
	}
	if p.Not != nil {
		not, err := convertProps(p.Not)
		if err != nil {
			return s, err
		}
		s.Not = &not
	}
	addExtensions(&s, p)
	if p.XIntOrString {
		unfoldIntOrString(&s)
	}
	if p.XEmbeddedResource {
		addKubeNative(&s, embeddedAPIVersionDoc, embeddedKindDoc)
		for _, f := range []string{"kind", "apiVersion"} {
			if !slices.Contains(s.Required, f) {
				s.Required = append(s.Required, f)
			}
		}
	}
	return s, nil
}

func convertAll(ps []apiextensionsv1.JSONSchemaProps) ([]spec.Schema, error) {
	if ps == nil {
		return nil, nil
	}
	out := make([]spec.Schema, len(ps))
	for i := range ps {
		var err error
		if out[i], err = convertProps(&ps[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func addExtensions(s *spec.Schema, p *apiextensionsv1.JSONSchemaProps) {
	if p.XPreserveUnknownFields != nil && *p.XPreserveUnknownFields {
		s.AddExtension(extPreserveUnknown, true)
	}
	if p.XEmbeddedResource {
		s.AddExtension("x-kubernetes-embedded-resource", true)
	}
	if p.XIntOrString {
		s.AddExtension("x-kubernetes-int-or-string", true)
	}
	if len(p.XListMapKeys) > 0 {
		s.AddExtension("x-kubernetes-list-map-keys", slices.Clone(p.XListMapKeys))
	}
	if p.XListType != nil {
		s.AddExtension("x-kubernetes-list-type", *p.XListType)
	}
	if p.XMapType != nil {
		s.AddExtension("x-kubernetes-map-type", *p.XMapType)
	}
	if len(p.XValidations) > 0 {
		s.AddExtension("x-kubernetes-validations", p.XValidations.DeepCopy())
	}
}

// unfoldIntOrString adds the anyOf that spells out
// x-kubernetes-int-or-string, unless the schema already has it.
func unfoldIntOrString(s *spec.Schema) {
	if isIntOrStringAnyOf(s.AnyOf) || len(s.AllOf) > 0 && isIntOrStringAnyOf(s.AllOf[0].AnyOf) {
		return
	}
	anyOf := []spec.Schema{typed("integer", ""), typed("string", "")}
	if s.AnyOf == nil {
		s.AnyOf = anyOf
		return
	}
	s.AllOf = append([]spec.Schema{{SchemaProps: spec.SchemaProps{AnyOf: anyOf}}}, s.AllOf...)
}

func isIntOrStringAnyOf(l []spec.Schema) bool {
	return len(l) == 2 && slices.Equal(l[0].Type, spec.StringOrArray{"integer"}) && slices.Equal(l[1].Type, spec.StringOrArray{"string"})
}

// jsonValue decodes a JSON value of a CRD schema (default, example, enum).
func jsonValue(j *apiextensionsv1.JSON) (any, error) {
	if j == nil || len(j.Raw) == 0 {
		return nil, nil
	}
	var v any
	err := json.Unmarshal(j.Raw, &v)
	return v, err
}
