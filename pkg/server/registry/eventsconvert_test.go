package registry

import (
	"encoding/json"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestEventsV1Conversion checks events.k8s.io/v1 Events against their
// stored core/v1 form both ways, with the fields each version renames and
// each version's encoding of empty ones, as kube-apiserver serves them.
func TestEventsV1Conversion(t *testing.T) {
	reg := New(Builtin()...)
	events, ok := reg.Get(schema.GroupVersionResource{Group: "events.k8s.io", Version: "v1", Resource: "events"})
	if !ok {
		t.Fatal("events.k8s.io/v1 events not served")
	}
	if got := events.StorageResource(); got != (schema.GroupResource{Resource: "events"}) {
		t.Errorf("storage resource %v, want core events", got)
	}
	meta := `"metadata":{"name":"e","namespace":"ns"}`
	tests := []struct {
		name           string
		served, stored string
	}{
		{
			name: "written by an events.k8s.io recorder",
			served: `{"apiVersion":"events.k8s.io/v1","kind":"Event",` + meta + `,` +
				`"eventTime":"2026-01-02T03:04:05.123456Z","series":{"count":2,"lastObservedTime":"2026-01-02T03:04:06.000000Z"},` +
				`"reportingController":"ctrl.example/x","reportingInstance":"inst-1","action":"Act","reason":"Why",` +
				`"regarding":{"kind":"Pod","namespace":"ns","name":"p1","uid":"u1","apiVersion":"v1"},"related":{"kind":"Node","name":"n1"},` +
				`"note":"hello","type":"Normal","deprecatedSource":{},"deprecatedFirstTimestamp":null,"deprecatedLastTimestamp":null}`,
			stored: `{"apiVersion":"v1","kind":"Event",` + meta + `,` +
				`"involvedObject":{"kind":"Pod","namespace":"ns","name":"p1","uid":"u1","apiVersion":"v1"},"reason":"Why","message":"hello",` +
				`"source":{},"firstTimestamp":null,"lastTimestamp":null,"type":"Normal","eventTime":"2026-01-02T03:04:05.123456Z",` +
				`"series":{"count":2,"lastObservedTime":"2026-01-02T03:04:06.000000Z"},"action":"Act","related":{"kind":"Node","name":"n1"},` +
				`"reportingComponent":"ctrl.example/x","reportingInstance":"inst-1"}`,
		},
		{
			name: "written by a core/v1 recorder",
			served: `{"apiVersion":"events.k8s.io/v1","kind":"Event",` + meta + `,` +
				`"eventTime":null,"reason":"Pulled",` +
				`"regarding":{"kind":"Pod","namespace":"ns","name":"p2"},"note":"msg2","type":"Warning",` +
				`"deprecatedSource":{"component":"kubelet","host":"node-a"},"deprecatedFirstTimestamp":"2026-01-02T03:04:05Z",` +
				`"deprecatedLastTimestamp":"2026-01-02T03:04:07Z","deprecatedCount":3}`,
			stored: `{"apiVersion":"v1","kind":"Event",` + meta + `,` +
				`"involvedObject":{"kind":"Pod","namespace":"ns","name":"p2"},"reason":"Pulled","message":"msg2",` +
				`"source":{"component":"kubelet","host":"node-a"},"firstTimestamp":"2026-01-02T03:04:05Z","lastTimestamp":"2026-01-02T03:04:07Z",` +
				`"count":3,"type":"Warning","eventTime":null,"reportingComponent":"","reportingInstance":""}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gotStored, err := events.ToStorage(object(t, tt.served))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := canonical(t, gotStored), canonical(t, object(t, tt.stored)); got != want {
				t.Errorf("to storage:\ngot  %s\nwant %s", got, want)
			}
			gotServed, err := events.FromStorage(object(t, tt.stored))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := canonical(t, gotServed), canonical(t, object(t, tt.served)); got != want {
				t.Errorf("from storage:\ngot  %s\nwant %s", got, want)
			}
		})
	}
}

func object(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return m
}

// canonical is obj's JSON with sorted keys and float64 numbers, so
// objects compare whatever their number types.
func canonical(t *testing.T, obj map[string]any) string {
	t.Helper()
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
