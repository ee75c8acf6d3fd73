package registry

import (
	"maps"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// toTyped reads unstructured content into a Go type. Strategies of
// kinds with deep specs (Pods, Nodes) default and validate the typed
// form: the rules are kube's, written against its types, and a typed
// walk keeps them short.
func toTyped(obj map[string]any, into any) field.ErrorList {
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, into); err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	return nil
}

// fromTyped replaces obj's content with the typed value's, in place,
// because strategies hand back the map they were given.
func fromTyped(obj map[string]any, typed any) field.ErrorList {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	clear(obj)
	maps.Copy(obj, m)
	return nil
}

// fromField decodes obj[key] into a T, the typed form of one part of an
// object (a Service's spec), for rules that read many fields; a missing
// part is T's zero value.
func fromField[T any](obj map[string]any, key string) (*T, error) {
	out := new(T)
	m, _ := obj[key].(map[string]any)
	if m == nil {
		return out, nil
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, out); err != nil {
		return nil, err
	}
	return out, nil
}

// setField stores v as obj[key] in unstructured form.
func setField[T any](obj map[string]any, key string, v *T) error {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(v)
	if err != nil {
		return err
	}
	obj[key] = m
	return nil
}
