package registry

import (
	"time"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// FieldValuer is implemented by kinds some of whose selectable fields are
// not one path into the object: its values replace those FieldSet reads
// by path.
type FieldValuer interface {
	FieldValues(obj map[string]any) fields.Set
}

// coreEventStrategy serves core/v1 Events' field selectors as
// kube-apiserver does: an Event written by the events.k8s.io recorders
// has no source.component, so "source" falls back to the reporting
// controller (reportingComponent in core/v1).
type coreEventStrategy struct{}

func (coreEventStrategy) PrepareForCreate(time.Time, map[string]any) field.ErrorList { return nil }

func (coreEventStrategy) PrepareForUpdate(time.Time, map[string]any, map[string]any) field.ErrorList {
	return nil
}

func (coreEventStrategy) FieldValues(obj map[string]any) fields.Set {
	source := str(nestedMap(obj, false, "source")["component"])
	if source == "" {
		source = str(obj["reportingComponent"])
	}
	return fields.Set{"source": source}
}
