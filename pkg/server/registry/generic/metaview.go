package generic

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// metaView is an object as ValidateObjectMetaAccessor reads it. The
// validation looks at each managedFields entry's manager, operation,
// fieldsType and subresource only, while Unstructured.GetManagedFields
// converts whole entries by reflection (their fieldsV1 through JSON) on
// every write: 2% of the server's CPU on creates. metaView reads those
// four strings directly. It is for objects of typed kinds, whose entries
// come from a typed decode or the field manager and so convert without
// error; anything not shaped as such an entry gets the full conversion.
type metaView struct{ *unstructured.Unstructured }

func (m metaView) GetManagedFields() []metav1.ManagedFieldsEntry {
	meta, _ := m.Object["metadata"].(map[string]any)
	raw, ok := meta["managedFields"].([]any)
	if !ok {
		return m.Unstructured.GetManagedFields()
	}
	out := make([]metav1.ManagedFieldsEntry, 0, len(raw))
	for _, item := range raw {
		f, ok := item.(map[string]any)
		if !ok {
			return m.Unstructured.GetManagedFields()
		}
		var e metav1.ManagedFieldsEntry
		var op, fieldsType string
		for _, s := range []struct {
			key string
			to  *string
		}{{"manager", &e.Manager}, {"operation", &op}, {"apiVersion", &e.APIVersion}, {"fieldsType", &fieldsType}, {"subresource", &e.Subresource}} {
			v, present := f[s.key]
			if !present {
				continue
			}
			str, isString := v.(string)
			if !isString {
				return m.Unstructured.GetManagedFields()
			}
			*s.to = str
		}
		e.Operation, e.FieldsType = metav1.ManagedFieldsOperationType(op), fieldsType
		out = append(out, e)
	}
	return out
}
