package registry

import (
	"reflect"
	"testing"
	"time"
)

var cellNow = time.Date(2024, 3, 10, 12, 0, 0, 0, time.UTC)

func TestCustomCell(t *testing.T) {
	tests := []struct {
		typ   string
		v     any
		found bool
		want  any
	}{
		{"string", nil, false, nil},
		{"string", nil, true, "<no value>"},
		{"string", "x", true, "x"},
		{"string", 2.5, true, "2.5"},
		{"string", int64(3), true, "3"},
		{"string", true, true, "true"},
		{"string", map[string]any{"a": []any{int64(1), int64(2)}}, true, `{"a":[1,2]}`},
		{"integer", nil, false, nil},
		{"integer", nil, true, nil},
		{"integer", int64(3), true, int64(3)},
		{"integer", 2.7, true, int64(2)},
		{"integer", "7", true, nil},
		{"number", int64(4), true, float64(4)},
		{"number", 1.5, true, 1.5},
		{"number", "1", true, nil},
		{"boolean", false, true, false},
		{"boolean", "yes", true, nil},
		{"boolean", nil, false, nil},
		{"date", "2024-03-10T11:55:00Z", true, "5m"},
		{"date", "2024-03-08T12:00:00Z", true, "2d"},
		{"date", "", true, "<unknown>"},
		{"date", "nope", true, "<invalid>"},
		{"date", int64(5), true, nil},
		{"date", nil, false, nil},
	}
	for _, tt := range tests {
		if got := CustomCell(tt.typ, tt.v, tt.found, cellNow); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("CustomCell(%s, %#v, %v) = %#v, want %#v", tt.typ, tt.v, tt.found, got, tt.want)
		}
	}
}

func TestEventCells(t *testing.T) {
	at := func(d time.Duration) string { return cellNow.Add(-d).Format(time.RFC3339) }
	micro := func(d time.Duration) string { return cellNow.Add(-d).Format("2006-01-02T15:04:05.000000Z07:00") }
	tests := []struct {
		name   string
		fields eventFields
		obj    map[string]any
		want   []any
	}{
		{"old-style event", coreEventFields, map[string]any{
			"metadata": map[string]any{"name": "e1"}, "type": "Warning", "reason": "BackOff", "message": " restarting \n",
			"involvedObject": map[string]any{"kind": "Pod", "name": "p", "fieldPath": "spec.containers{app}"},
			"source":         map[string]any{"component": "kubelet", "host": "n1"},
			"firstTimestamp": at(50 * time.Minute), "lastTimestamp": at(5 * time.Minute), "count": int64(7),
		}, []any{"5m", "Warning", "BackOff", "pod/p", "spec.containers{app}", "kubelet, n1", "restarting", "50m", int64(7), "e1"}},
		{"new-style event seen once, through core/v1", coreEventFields, map[string]any{
			"metadata": map[string]any{"name": "e2"}, "type": "Normal", "reason": "Scheduled",
			"involvedObject": map[string]any{"kind": "ReplicaSet", "name": "rs"},
			"eventTime":      micro(3 * time.Hour), "reportingComponent": "default-scheduler",
		}, []any{"3h", "Normal", "Scheduled", "replicaset/rs", "", "default-scheduler", "", "3h", int64(1), "e2"}},
		{"series, through events.k8s.io", eventsV1Fields, map[string]any{
			"metadata": map[string]any{"name": "e3"}, "type": "Normal", "reason": "R", "note": "n",
			"regarding": map[string]any{"kind": "Node"}, "reportingController": "ctl", "reportingInstance": "i",
			"eventTime": micro(2 * time.Hour), "series": map[string]any{"count": int64(4), "lastObservedTime": micro(10 * time.Second)},
		}, []any{"10s", "Normal", "R", "node", "", "ctl, i", "n", "120m", int64(4), "e3"}},
		{"nothing set", coreEventFields, map[string]any{"metadata": map[string]any{"name": "e4"}},
			[]any{"<unknown>", "", "", "", "", "", "", "<unknown>", int64(1), "e4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []any
			for _, c := range eventColumns(tt.fields) {
				v, _ := c.Cell(tt.obj, cellNow)
				got = append(got, v)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %#v\nwant %#v", got, tt.want)
			}
		})
	}
}
