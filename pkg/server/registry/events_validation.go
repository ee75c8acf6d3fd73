package registry

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Length limits kube-apiserver puts on the text of an event that has an
// event time (one written by an events.k8s.io recorder).
const (
	eventReportingInstanceMax = 128
	eventActionMax            = 128
	eventReasonMax            = 128
	eventNoteMax              = 1024
)

// legacyEventErrors are the rules every Event write passes, in either
// version. An event without an event time is an old-style one whose
// involvedObject's namespace must be the event's (or empty, in default);
// one with an event time must name who reported it and what was done.
// reporterField is how the request's version spells the reporting
// controller, the field path the errors name.
func legacyEventErrors(ev *corev1.Event, reporterField string) field.ErrorList {
	var errs field.ErrorList
	nsPath := field.NewPath("involvedObject", "namespace")
	objNS := ev.InvolvedObject.Namespace
	if ev.EventTime.IsZero() {
		if (objNS == "" && ev.Namespace != "" && ev.Namespace != "default") || (objNS != "" && ev.Namespace != objNS) {
			errs = append(errs, field.Invalid(nsPath, objNS, "does not match event.namespace"))
		}
	} else {
		if objNS == "" && ev.Namespace != "default" && ev.Namespace != "kube-system" {
			errs = append(errs, field.Invalid(nsPath, objNS, "does not match event.namespace"))
		}
		reporter := field.NewPath(reporterField)
		if ev.ReportingController == "" {
			errs = append(errs, field.Required(reporter, ""))
		}
		for _, msg := range validation.IsQualifiedName(ev.ReportingController) {
			errs = append(errs, field.Invalid(reporter, ev.ReportingController, msg))
		}
		errs = append(errs, requiredBounded(field.NewPath("reportingInstance"), ev.ReportingInstance, eventReportingInstanceMax)...)
		errs = append(errs, requiredBounded(field.NewPath("action"), ev.Action, eventActionMax)...)
		errs = append(errs, requiredBounded(field.NewPath("reason"), ev.Reason, eventReasonMax)...)
		if len(ev.Message) > eventNoteMax {
			errs = append(errs, tooLongEventText(field.NewPath("message"), eventNoteMax))
		}
	}
	for _, msg := range validation.IsDNS1123Subdomain(ev.Namespace) {
		errs = append(errs, field.Invalid(field.NewPath("namespace"), ev.Namespace, msg))
	}
	return errs
}

// requiredBounded checks a text field that must be set and at most max
// bytes long.
func requiredBounded(path *field.Path, s string, max int) field.ErrorList {
	var errs field.ErrorList
	if s == "" {
		errs = append(errs, field.Required(path, ""))
	}
	if len(s) > max {
		errs = append(errs, tooLongEventText(path, max))
	}
	return errs
}

// tooLongEventText is kube's error for an event's overlong text, which
// names the limit and not the value.
func tooLongEventText(path *field.Path, max int) *field.Error {
	return field.Invalid(path, "", fmt.Sprintf("can have at most %v characters", max))
}

// eventCreateErrors are the rules of an Event created through
// events.k8s.io: beyond the legacy ones, the event must say when it
// happened and be Normal or Warning, and must not set the fields only
// old-style events have. Paths name core/v1 fields, as kube's do.
func eventCreateErrors(ev *corev1.Event) field.ErrorList {
	errs := legacyEventErrors(ev, "reportingController")
	errs = append(errs, eventSeriesErrors(ev)...)
	if ev.EventTime.IsZero() {
		errs = append(errs, field.Required(field.NewPath("eventTime"), ""))
	}
	if ev.Type != corev1.EventTypeNormal && ev.Type != corev1.EventTypeWarning {
		errs = append(errs, field.Invalid(field.NewPath("type"), "", fmt.Sprintf("has invalid value: %v", ev.Type)))
	}
	unset := func(name string, set bool) {
		if set {
			errs = append(errs, field.Invalid(field.NewPath(name), "", "needs to be unset"))
		}
	}
	unset("firstTimestamp", !ev.FirstTimestamp.IsZero())
	unset("lastTimestamp", !ev.LastTimestamp.IsZero())
	unset("count", ev.Count != 0)
	unset("source", ev.Source.Component != "" || ev.Source.Host != "")
	return errs
}

// eventUpdateErrors are the rules of an Event updated through
// events.k8s.io: a changed series must be well formed and everything the
// event says (all but metadata and series) is immutable. The event time
// may move below a microsecond, the precision it is written with.
func eventUpdateErrors(ev, old *corev1.Event) field.ErrorList {
	errs := legacyEventErrors(ev, "reportingController")
	if !equality.Semantic.DeepEqual(ev.Series, old.Series) {
		errs = append(errs, eventSeriesErrors(ev)...)
	}
	immutable := func(name string, v, was any) {
		if equality.Semantic.DeepEqual(v, was) {
			return
		}
		bad := v
		switch v.(type) {
		case string, int32:
		default:
			bad = kubeValue{v}
		}
		errs = append(errs, field.Invalid(field.NewPath(name), bad, "field is immutable"))
	}
	immutable("involvedObject", ev.InvolvedObject, old.InvolvedObject)
	immutable("reason", ev.Reason, old.Reason)
	immutable("message", ev.Message, old.Message)
	immutable("source", ev.Source, old.Source)
	immutable("firstTimestamp", ev.FirstTimestamp, old.FirstTimestamp)
	immutable("lastTimestamp", ev.LastTimestamp, old.LastTimestamp)
	immutable("count", ev.Count, old.Count)
	// kube checks the reason twice: a changed reason is two causes.
	immutable("reason", ev.Reason, old.Reason)
	immutable("type", ev.Type, old.Type)
	if !ev.EventTime.Truncate(time.Microsecond).UTC().Equal(old.EventTime.Truncate(time.Microsecond).UTC()) {
		immutable("eventTime", ev.EventTime, old.EventTime)
	}
	immutable("action", ev.Action, old.Action)
	immutable("related", ev.Related, old.Related)
	immutable("reportingController", ev.ReportingController, old.ReportingController)
	immutable("reportingInstance", ev.ReportingInstance, old.ReportingInstance)
	return errs
}

// eventSeriesErrors checks a series: it is an event seen again, so at
// least twice, and says when it was last seen.
func eventSeriesErrors(ev *corev1.Event) field.ErrorList {
	if ev.Series == nil {
		return nil
	}
	var errs field.ErrorList
	if ev.Series.Count < 2 {
		errs = append(errs, field.Invalid(field.NewPath("series.count"), "", "should be at least 2"))
	}
	if ev.Series.LastObservedTime.IsZero() {
		errs = append(errs, field.Required(field.NewPath("series.lastObservedTime"), ""))
	}
	return errs
}
