package registry

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Converter turns objects of one served version into the stored form of
// the resource whose storage the version shares, and back. Both sides are
// whole objects in unstructured form, metadata included.
type Converter interface {
	ToStorage(obj map[string]any) (map[string]any, error)
	FromStorage(obj map[string]any) (map[string]any, error)
}

// StorageResource is the group/resource under whose keys, and in whose
// watch cache, the resource's objects are kept.
func (r *Resource) StorageResource() schema.GroupResource {
	if r.SharesStorage != (schema.GroupResource{}) {
		return r.SharesStorage
	}
	return r.GroupResource()
}

// FromStorage returns a stored object as this version serves it. Stored
// custom objects follow the storage version's schema, which this
// version's may prune or default differently.
func (r *Resource) FromStorage(obj map[string]any) (map[string]any, error) {
	if r.Converter != nil {
		out, err := r.Converter.FromStorage(obj)
		if err != nil {
			return nil, fmt.Errorf("registry: converting %s from storage: %w", r.GroupVersionKind(), err)
		}
		obj = out
	}
	r.NormalizeStored(obj)
	obj["apiVersion"] = r.APIVersion()
	obj["kind"] = r.Kind
	return obj, nil
}

// ToStorage returns an object of this version in its stored form.
func (r *Resource) ToStorage(obj map[string]any) (map[string]any, error) {
	if r.Converter == nil {
		return obj, nil
	}
	out, err := r.Converter.ToStorage(obj)
	if err != nil {
		return nil, fmt.Errorf("registry: converting %s to storage: %w", r.GroupVersionKind(), err)
	}
	return out, nil
}
