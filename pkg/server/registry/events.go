package registry

import (
	"time"

	corev1 "k8s.io/api/core/v1"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// FieldValuer is implemented by kinds some of whose selectable fields are
// not one path into the object: its values replace those FieldSet reads
// by path.
type FieldValuer interface {
	FieldValues(obj map[string]any) fields.Set
}

// coreEventStrategy holds core/v1 Event writes to kube-apiserver's
// legacy event rules only, as kube does for that version to keep old
// clients working, and serves core/v1 Events' field selectors as
// kube-apiserver does: an Event written by the events.k8s.io recorders
// has no source.component, so "source" falls back to the reporting
// controller (reportingComponent in core/v1).
type coreEventStrategy struct{}

func (coreEventStrategy) PrepareForCreate(_ time.Time, obj map[string]any) field.ErrorList {
	var ev corev1.Event
	if errs := toTyped(obj, &ev); len(errs) > 0 {
		return errs
	}
	return legacyEventErrors(&ev, "reportingComponent")
}

func (s coreEventStrategy) PrepareForUpdate(now time.Time, obj, _ map[string]any) field.ErrorList {
	return s.PrepareForCreate(now, obj)
}

// eventsV1Strategy holds events.k8s.io/v1 Event writes to kube's strict
// event rules, checked, as kube checks them, on the event's core/v1 form.
type eventsV1Strategy struct{}

func (eventsV1Strategy) PrepareForCreate(_ time.Time, obj map[string]any) field.ErrorList {
	ev, errs := coreEvent(obj)
	if len(errs) > 0 {
		return errs
	}
	return eventCreateErrors(ev)
}

func (eventsV1Strategy) PrepareForUpdate(_ time.Time, obj, old map[string]any) field.ErrorList {
	ev, errs := coreEvent(obj)
	if len(errs) > 0 {
		return errs
	}
	was, errs := coreEvent(old)
	if len(errs) > 0 {
		return errs
	}
	return eventUpdateErrors(ev, was)
}

// coreEvent is an events.k8s.io/v1 Event in its core/v1 form.
func coreEvent(obj map[string]any) (*corev1.Event, field.ErrorList) {
	m, err := eventsV1Converter{}.ToStorage(obj)
	if err != nil {
		return nil, field.ErrorList{field.InternalError(nil, err)}
	}
	var ev corev1.Event
	if errs := toTyped(m, &ev); len(errs) > 0 {
		return nil, errs
	}
	return &ev, nil
}

func (coreEventStrategy) FieldValues(obj map[string]any) fields.Set {
	source := str(nestedMap(obj, false, "source")["component"])
	if source == "" {
		source = str(obj["reportingComponent"])
	}
	return fields.Set{"source": source}
}
