package crdschema

import (
	"encoding/json"
	"strings"

	"k8s.io/apimachinery/pkg/api/validate/content"
	metav1validation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// embedded checks an object with x-kubernetes-embedded-resource the way
// kube checks embedded resources: apiVersion and kind are required and
// well-formed, and metadata is valid ObjectMeta.
func (v *validator) embedded(m map[string]any) {
	if _, ok := m["apiVersion"]; !ok {
		v.add(field.Required(v.fieldPath().Child("apiVersion"), ""))
	}
	if _, ok := m["kind"]; !ok {
		v.add(field.Required(v.fieldPath().Child("kind"), ""))
	}
	if x, ok := m["apiVersion"]; ok {
		p := v.fieldPath().Child("apiVersion")
		if s, isString := x.(string); !isString {
			v.add(field.Invalid(p, x, "must be a string"))
		} else if s == "" {
			v.add(field.Invalid(p, s, "must not be empty"))
		} else if _, err := schema.ParseGroupVersion(s); err != nil {
			v.add(field.Invalid(p, s, err.Error()))
		}
	}
	if x, ok := m["kind"]; ok {
		p := v.fieldPath().Child("kind")
		if s, isString := x.(string); !isString {
			v.add(field.Invalid(p, x, "must be a string"))
		} else if s == "" {
			v.add(field.Invalid(p, s, "must not be empty"))
		} else if errs := utilvalidation.IsDNS1035Label(strings.ToLower(s)); len(errs) > 0 {
			v.add(field.Invalid(p, s, "may have mixed case, but should otherwise match: "+strings.Join(errs, ",")))
		}
	}
	if x, ok := m["metadata"]; ok {
		v.embeddedMeta(x)
	}
}

func (v *validator) embeddedMeta(x any) {
	p := v.fieldPath().Child("metadata")
	if _, ok := x.(map[string]any); !ok {
		v.add(field.Invalid(p, x, "must be an object"))
		return
	}
	// Embedded resources are rare; a JSON round trip keeps this simple.
	raw, err := json.Marshal(x)
	if err != nil {
		v.add(field.Invalid(p, x, err.Error()))
		return
	}
	var meta metav1.ObjectMeta
	if err := json.Unmarshal(raw, &meta); err != nil {
		v.add(field.Invalid(p, x, err.Error()))
		return
	}
	if meta.Name == "" {
		meta.Name = "fakename" // an embedded resource need not be named yet
	}
	v.errs = append(v.errs, metav1validation.ValidateObjectMeta(&meta, meta.Namespace != "", pathSegmentName, p)...)
}

func pathSegmentName(name string, prefix bool) []string {
	if prefix {
		return content.IsPathSegmentPrefix(name)
	}
	return content.IsPathSegmentName(name)
}
