package registry

import (
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// eventFields name where an Event version keeps what kube's event
// printer shows: both versions print the same table from the one stored
// kind, each reading its own field names.
type eventFields struct {
	object, message, source, reporter    string
	firstTimestamp, lastTimestamp, count string
}

var (
	coreEventFields = eventFields{
		object: "involvedObject", message: "message", source: "source", reporter: "reportingComponent",
		firstTimestamp: "firstTimestamp", lastTimestamp: "lastTimestamp", count: "count",
	}
	eventsV1Fields = eventFields{
		object: "regarding", message: "note", source: "deprecatedSource", reporter: "reportingController",
		firstTimestamp: "deprecatedFirstTimestamp", lastTimestamp: "deprecatedLastTimestamp", count: "deprecatedCount",
	}
)

// eventColumns are kube's event table: the whole row, since it starts
// with when the event was last seen and ends, wide, with its name.
func eventColumns(f eventFields) []Column {
	doc := corev1.Event{}.SwaggerDoc()
	return []Column{
		{Name: "Last Seen", Type: "string", Description: doc["lastTimestamp"], ValueAt: f.lastSeen},
		{Name: "Type", Type: "string", Description: doc["type"], Value: stringField("type")},
		{Name: "Reason", Type: "string", Description: doc["reason"], Value: stringField("reason")},
		{Name: "Object", Type: "string", Description: doc["involvedObject"], Value: objectReference(f.object)},
		{Name: "Subobject", Type: "string", Priority: 1, Description: corev1.ObjectReference{}.SwaggerDoc()["fieldPath"],
			Value: func(obj map[string]any) any { return str(nestedMap(obj, false, f.object)["fieldPath"]) }},
		{Name: "Source", Type: "string", Priority: 1, Description: doc["source"], Value: f.sourceCell},
		{Name: "Message", Type: "string", Description: doc["message"],
			Value: func(obj map[string]any) any { return strings.TrimSpace(str(obj[f.message])) }},
		{Name: "First Seen", Type: "string", Priority: 1, Description: doc["firstTimestamp"], ValueAt: f.firstSeen},
		{Name: "Count", Type: "string", Priority: 1, Description: doc["count"], Value: f.countCell},
		{Name: "Name", Type: "string", Format: "name", Priority: 1, Description: metav1.ObjectMeta{}.SwaggerDoc()["name"],
			Value: func(obj map[string]any) any { return str(nestedMap(obj, false, "metadata")["name"]) }},
	}
}

// firstSeen is the first timestamp, or the event time of an event
// written through events.k8s.io, which has no first timestamp.
func (f eventFields) firstSeen(obj map[string]any, now time.Time) any {
	if ts := str(obj[f.firstTimestamp]); ts != "" {
		return Since(ts, now)
	}
	return Since(str(obj["eventTime"]), now)
}

// lastSeen is the series' last observation, else the last timestamp,
// else when the event was first seen.
func (f eventFields) lastSeen(obj map[string]any, now time.Time) any {
	if series := nestedMap(obj, false, "series"); series != nil {
		return Since(str(series["lastObservedTime"]), now)
	}
	if ts := str(obj[f.lastTimestamp]); ts != "" {
		return Since(ts, now)
	}
	return f.firstSeen(obj, now)
}

// countCell is the series' count, else the count, where an event
// written once through events.k8s.io, with no count, counts 1.
func (f eventFields) countCell(obj map[string]any) any {
	if series := nestedMap(obj, false, "series"); series != nil {
		return intField(series["count"])
	}
	if n := intField(obj[f.count]); n != 0 {
		return n
	}
	return int64(1)
}

// sourceCell is the source's component and host, each falling back to
// the reporting controller and instance: "component, host".
func (f eventFields) sourceCell(obj map[string]any) any {
	src := nestedMap(obj, false, f.source)
	component := firstNonEmpty(str(src["component"]), str(obj[f.reporter]))
	host := firstNonEmpty(str(src["host"]), str(obj["reportingInstance"]))
	if host == "" {
		return component
	}
	return component + ", " + host
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func stringField(name string) func(map[string]any) any {
	return func(obj map[string]any) any { return str(obj[name]) }
}

// intField reads a JSON integer, stored as int64 or float64.
func intField(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case float64:
		return int64(n)
	case int:
		return int64(n)
	}
	return 0
}
