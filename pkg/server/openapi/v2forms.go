package openapi

import (
	"runtime"
	"slices"
	"sync"
	"weak"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// v2Forms holds the v2 forms of CRD definitions that toV2 cannot derive
// from the v3 form alone, keyed by the v3 form; an entry goes when its
// definition is collected.
var v2Forms sync.Map // weak.Pointer[spec.Schema] -> *spec.Schema

// setV2Form records v2 as the v2 form of definition s.
func setV2Form(s, v2 *spec.Schema) {
	key := weak.Make(s)
	v2Forms.Store(key, v2)
	runtime.AddCleanup(s, func(key weak.Pointer[spec.Schema]) { v2Forms.Delete(key) }, key)
}

// recordedV2Form returns the v2 form setV2Form recorded for s, if any.
func recordedV2Form(s *spec.Schema) (*spec.Schema, bool) {
	v, ok := v2Forms.Load(weak.Make(s))
	if !ok {
		return nil, false
	}
	return v.(*spec.Schema), true
}

// embeddedRequiredV2 gives the v2 form of a CRD's definition, v2, what
// kube publishes for embedded resources that preserve unknown fields:
// in v2 they get neither apiVersion, kind and metadata nor the required
// kind and apiVersion the v3 form adds, only the schema's own required
// fields. p is the CRD's schema at the same node. It reports whether it
// found such a node.
func embeddedRequiredV2(v2 *spec.Schema, p *apiextensionsv1.JSONSchemaProps) bool {
	if v2 == nil || p == nil {
		return false
	}
	found := false
	if p.XEmbeddedResource && p.XPreserveUnknownFields != nil && *p.XPreserveUnknownFields {
		v2.Required = slices.Clone(p.Required)
		if p.AdditionalProperties != nil && p.AdditionalProperties.Schema != nil && p.AdditionalProperties.Schema.Nullable {
			v2.Required = nil
		}
		found = true
	}
	for k, child := range v2.Properties {
		if cp, ok := p.Properties[k]; ok && embeddedRequiredV2(&child, &cp) {
			v2.Properties[k] = child
			found = true
		}
	}
	if v2.Items != nil && p.Items != nil && embeddedRequiredV2(v2.Items.Schema, p.Items.Schema) {
		found = true
	}
	if v2.AdditionalProperties != nil && p.AdditionalProperties != nil &&
		embeddedRequiredV2(v2.AdditionalProperties.Schema, p.AdditionalProperties.Schema) {
		found = true
	}
	return found
}
