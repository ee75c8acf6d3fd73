package registry

import (
	"k8s.io/apimachinery/pkg/runtime"
)

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
