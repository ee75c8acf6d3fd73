package compat_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/tools/record"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// TestEventRecorders runs client-go's two event recorders: tools/record
// (core v1 Events; repeats are folded into one Event by a strategic
// merge patch of its count) and tools/events (events.k8s.io/v1; a repeat
// starts a series, again by strategic merge patch).
func TestEventRecorders(t *testing.T) {
	srv := apiservertest.Start(t)
	rec := newRecorder(t)
	cs, err := kubernetes.NewForConfig(rec.wrap(srv.Config))
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	ns := createNamespace(t, cs, "events")
	cm, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "subject"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	t.Run("record", func(t *testing.T) {
		b := record.NewBroadcaster()
		t.Cleanup(b.Shutdown)
		b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: cs.CoreV1().Events("")})
		r := b.NewRecorder(clientgoscheme.Scheme, corev1.EventSource{Component: "compat-record"})
		for range 3 {
			r.Event(cm, corev1.EventTypeNormal, "Poked", "the subject was poked")
		}
		// kubectl describe finds an object's events by field selector.
		sel := fields.Set{"involvedObject.kind": "ConfigMap", "involvedObject.name": cm.Name, "involvedObject.uid": string(cm.UID)}.AsSelector().String()
		waitFor(t, "one v1 Event with count 3", func() (bool, error) {
			list, err := cs.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: sel})
			if err != nil {
				return false, err
			}
			if len(list.Items) != 1 {
				return false, fmt.Errorf("%d events", len(list.Items))
			}
			ev := list.Items[0]
			return ev.Count == 3 && ev.Reason == "Poked" && ev.Source.Component == "compat-record" && ev.InvolvedObject.Name == cm.Name,
				fmt.Errorf("event count %d reason %q source %v involvedObject %v", ev.Count, ev.Reason, ev.Source, ev.InvolvedObject)
		})
		if n := countWhere(rec.requests(nil), func(r recordedRequest) bool {
			return r.Method == "PATCH" && r.URL.Path != "" && r.ContentType == "application/strategic-merge-patch+json" && r.Status == 200
		}); n == 0 {
			t.Errorf("no successful strategic merge PATCH of the repeated event recorded")
		}
	})

	t.Run("events", func(t *testing.T) {
		b := events.NewBroadcaster(&events.EventSinkImpl{Interface: cs.EventsV1()})
		t.Cleanup(b.Shutdown)
		if err := b.StartRecordingToSinkWithContext(ctx); err != nil {
			t.Fatal(err)
		}
		r := b.NewRecorder(clientgoscheme.Scheme, "compat-events")
		r.Eventf(cm, nil, corev1.EventTypeWarning, "Prodded", "Prod", "prodded %d", 1)
		waitFor(t, "an events.k8s.io Event", func() (bool, error) {
			list, err := cs.EventsV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "reportingController=compat-events"})
			if err != nil || len(list.Items) != 1 {
				return false, fmt.Errorf("%d events (err %v)", len(list.Items), err)
			}
			ev := list.Items[0]
			return ev.Reason == "Prodded" && ev.Action == "Prod" && ev.Note == "prodded 1" && ev.Regarding.UID == cm.UID && !ev.EventTime.IsZero(),
				fmt.Errorf("event %+v", ev)
		})
		// The same event again starts a series.
		r.Eventf(cm, nil, corev1.EventTypeWarning, "Prodded", "Prod", "prodded %d", 1)
		waitFor(t, "the events.k8s.io Event to get a series of 2", func() (bool, error) {
			list, err := cs.EventsV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "reportingController=compat-events"})
			if err != nil || len(list.Items) != 1 {
				return false, fmt.Errorf("%d events (err %v)", len(list.Items), err)
			}
			s := list.Items[0].Series
			return s != nil && s.Count == 2, fmt.Errorf("series %+v", s)
		})
	})
}
