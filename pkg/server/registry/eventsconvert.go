package registry

import (
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// coreEvents is where Events of every served version are kept: as core/v1
// Events, under core's keys, as kube-apiserver keeps them in one store.
var coreEvents = schema.GroupResource{Resource: "events"}

// eventsV1Converter serves core/v1 Events as events.k8s.io/v1 Events and
// stores those as core/v1 ones. The two kinds carry the same data under
// other names: the object an event is about (regarding, involvedObject),
// its text (note, message), the reporting controller (reportingController,
// which core/v1 spells reportingComponent), and the fields events.k8s.io
// keeps only for older clients (deprecatedSource, deprecatedCount and the
// deprecated timestamps). Converting through the Go types gives each
// version's own encoding of empty fields, as kube-apiserver's does.
type eventsV1Converter struct{}

func (eventsV1Converter) FromStorage(obj map[string]any) (map[string]any, error) {
	var in corev1.Event
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, &in); err != nil {
		return nil, err
	}
	out := eventsv1.Event{
		ObjectMeta:               in.ObjectMeta,
		EventTime:                in.EventTime,
		ReportingController:      in.ReportingController,
		ReportingInstance:        in.ReportingInstance,
		Action:                   in.Action,
		Reason:                   in.Reason,
		Regarding:                in.InvolvedObject,
		Related:                  in.Related,
		Note:                     in.Message,
		Type:                     in.Type,
		DeprecatedSource:         in.Source,
		DeprecatedFirstTimestamp: in.FirstTimestamp,
		DeprecatedLastTimestamp:  in.LastTimestamp,
		DeprecatedCount:          in.Count,
	}
	out.APIVersion, out.Kind = eventsv1.SchemeGroupVersion.String(), "Event"
	if in.Series != nil {
		out.Series = &eventsv1.EventSeries{Count: in.Series.Count, LastObservedTime: in.Series.LastObservedTime}
	}
	return runtime.DefaultUnstructuredConverter.ToUnstructured(&out)
}

func (eventsV1Converter) ToStorage(obj map[string]any) (map[string]any, error) {
	var in eventsv1.Event
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, &in); err != nil {
		return nil, err
	}
	out := corev1.Event{
		ObjectMeta:          in.ObjectMeta,
		InvolvedObject:      in.Regarding,
		Reason:              in.Reason,
		Message:             in.Note,
		Source:              in.DeprecatedSource,
		FirstTimestamp:      in.DeprecatedFirstTimestamp,
		LastTimestamp:       in.DeprecatedLastTimestamp,
		Count:               in.DeprecatedCount,
		Type:                in.Type,
		EventTime:           in.EventTime,
		Action:              in.Action,
		Related:             in.Related,
		ReportingController: in.ReportingController,
		ReportingInstance:   in.ReportingInstance,
	}
	out.APIVersion, out.Kind = corev1.SchemeGroupVersion.String(), "Event"
	if in.Series != nil {
		out.Series = &corev1.EventSeries{Count: in.Series.Count, LastObservedTime: in.Series.LastObservedTime}
	}
	return runtime.DefaultUnstructuredConverter.ToUnstructured(&out)
}
