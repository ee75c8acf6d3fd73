package apiserver

import (
	"encoding/json"
	"testing"

	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/protobuf"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/response"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/server/registry/generic"
	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// TestServedViews checks that a cached core Event is served to
// events.k8s.io/v1 readers as its converted view, with that version's
// selectable fields, that the view and the event's view (which holds
// the watch frames) are built once and shared, and that the view
// encodes as an events.k8s.io/v1 protobuf message.
func TestServedViews(t *testing.T) {
	reg := registry.New(registry.Builtin()...)
	core, ok := reg.Get(schema.GroupVersionResource{Version: "v1", Resource: "events"})
	if !ok {
		t.Fatal("core/v1 events not served")
	}
	events, ok := reg.Get(schema.GroupVersionResource{Group: "events.k8s.io", Version: "v1", Resource: "events"})
	if !ok {
		t.Fatal("events.k8s.io/v1 events not served")
	}
	if got := events.Key("ns", "e"); got != core.Key("ns", "e") {
		t.Fatalf("events.k8s.io key %q, want core's %q", got, core.Key("ns", "e"))
	}
	// As stored after an events.k8s.io recorder's create.
	stored := `{"apiVersion":"v1","kind":"Event","metadata":{"name":"e","namespace":"ns"},` +
		`"involvedObject":{"kind":"Pod","name":"p"},"message":"hi","reason":"Started","type":"Normal",` +
		`"source":{},"reportingComponent":"ctrl","reportingInstance":"i","eventTime":"2026-01-02T03:04:05.000000Z"}`
	o, err := generic.Decoder(core)(core.Key("ns", "e"), []byte(stored), 7)
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name       string
		res        *registry.Resource
		apiVersion string
		fields     map[string]string
	}{
		{"core/v1 reads the object itself", core, "v1", map[string]string{
			"involvedObject.name": "p", "source": "ctrl", "reportingComponent": "ctrl", "reason": "Started",
		}},
		{"events.k8s.io/v1 reads its view", events, "events.k8s.io/v1", map[string]string{
			"regarding.name": "p", "regarding.kind": "Pod", "reportingController": "ctrl", "type": "Normal", "reason": "Started",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := generic.Served(tt.res, o)
			if err != nil {
				t.Fatal(err)
			}
			if v.APIVersion != tt.apiVersion || v.Revision != 7 || v.Key != o.Key {
				t.Errorf("view apiVersion %q revision %d key %q, want %q 7 %q", v.APIVersion, v.Revision, v.Key, tt.apiVersion, o.Key)
			}
			for f, want := range tt.fields {
				if got := v.Fields.Get(f); got != want {
					t.Errorf("field %s = %q, want %q", f, got, want)
				}
			}
			if again, _ := generic.Served(tt.res, o); again != v {
				t.Error("a second read built another view")
			}
			ev := &watchcache.Event{Type: storage.Added, Revision: 7, Object: o}
			e1, err := generic.ServedEvent(tt.res, ev)
			if err != nil {
				t.Fatal(err)
			}
			if e2, _ := generic.ServedEvent(tt.res, ev); e2 != e1 || e1.Object != v {
				t.Error("the event's view is not shared, or not of the object's view")
			}
			if (tt.res == core) != (e1 == ev) {
				t.Errorf("storage version reads the event itself: %v", e1 == ev)
			}
		})
	}

	v, _ := generic.Served(events, o)
	pb, err := response.ProtoItem(events.GroupVersionKind(), v)
	if err != nil {
		t.Fatal(err)
	}
	env, err := protobuf.Default().Envelope(events.GroupVersionKind(), pb)
	if err != nil {
		t.Fatal(err)
	}
	gvk, js, err := protobuf.Default().DecodeToJSON(env)
	if err != nil {
		t.Fatal(err)
	}
	var got eventsv1.Event
	if err := json.Unmarshal(js, &got); err != nil {
		t.Fatal(err)
	}
	if gvk != events.GroupVersionKind() || got.Note != "hi" || got.ReportingController != "ctrl" || got.Regarding.Name != "p" || got.ResourceVersion != "7" {
		t.Errorf("protobuf view decodes as %v %+v, want %s with note, reportingController, regarding and resourceVersion", gvk, got, events.GroupVersionKind())
	}
}
