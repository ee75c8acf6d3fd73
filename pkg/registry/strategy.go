package registry

import (
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Strategy holds what differs about a kind when it is written: defaults
// the server fills in and rules beyond the generic metadata ones. Objects
// are unstructured content; the generic path has already applied
// server-set metadata and the status subresource rules.
type Strategy interface {
	PrepareForCreate(now time.Time, obj map[string]any) field.ErrorList
	PrepareForUpdate(now time.Time, obj, old map[string]any) field.ErrorList
}

type namespaceStrategy struct{}

func (namespaceStrategy) PrepareForCreate(_ time.Time, obj map[string]any) field.ErrorList {
	obj["status"] = map[string]any{"phase": "Active"}
	return nil
}

func (namespaceStrategy) PrepareForUpdate(time.Time, map[string]any, map[string]any) field.ErrorList {
	return nil
}

type secretStrategy struct{}

func (secretStrategy) PrepareForCreate(_ time.Time, obj map[string]any) field.ErrorList {
	if t, _ := obj["type"].(string); t == "" {
		obj["type"] = "Opaque"
	}
	return nil
}

func (secretStrategy) PrepareForUpdate(_ time.Time, obj, old map[string]any) field.ErrorList {
	if t, _ := obj["type"].(string); t == "" {
		obj["type"] = old["type"]
	}
	if obj["type"] != old["type"] {
		return field.ErrorList{field.Invalid(field.NewPath("type"), obj["type"], "field is immutable")}
	}
	return nil
}

// nestedMap returns obj[path...] as a map, creating the maps on the way
// when create is set.
func nestedMap(obj map[string]any, create bool, path ...string) map[string]any {
	m := obj
	for _, p := range path {
		next, ok := m[p].(map[string]any)
		if !ok {
			if !create {
				return nil
			}
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	return m
}
