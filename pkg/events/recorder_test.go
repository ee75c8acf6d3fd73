package events_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/setpoint-dev/setpoint/pkg/events"
)

func TestEventWritten(t *testing.T) {
	e := newEnv(t, nil)
	cm := e.configMap("web")
	e.start()

	e.rec.Event(cm, corev1.EventTypeWarning, "SyncFailed", "cannot reach the backend")
	ev := e.waitEvents("default", count(1))[0]

	if !regexp.MustCompile(`^web\.[0-9a-f]+$`).MatchString(ev.Name) {
		t.Errorf("name = %q, want web.<hex>", ev.Name)
	}
	want := corev1.ObjectReference{
		APIVersion: "v1", Kind: "ConfigMap", Namespace: "default", Name: "web",
		UID: cm.UID, ResourceVersion: cm.ResourceVersion,
	}
	if ev.InvolvedObject != want {
		t.Errorf("involvedObject = %+v, want %+v", ev.InvolvedObject, want)
	}
	if ev.Type != corev1.EventTypeWarning || ev.Reason != "SyncFailed" || ev.Message != "cannot reach the backend" {
		t.Errorf("type, reason, message = %q, %q, %q", ev.Type, ev.Reason, ev.Message)
	}
	if ev.Source != (corev1.EventSource{Component: "widget-controller", Host: "node-1"}) {
		t.Errorf("source = %+v", ev.Source)
	}
	if ev.ReportingController != "widget-controller" || ev.ReportingInstance != "node-1" {
		t.Errorf("reportingController, reportingInstance = %q, %q", ev.ReportingController, ev.ReportingInstance)
	}
	if ev.Count != 1 || !ev.FirstTimestamp.Time.Equal(t0) || !ev.LastTimestamp.Time.Equal(t0) {
		t.Errorf("count %d, first %v, last %v; want 1, %v, %v", ev.Count, ev.FirstTimestamp, ev.LastTimestamp, t0, t0)
	}
	if ev.Namespace != "default" {
		t.Errorf("namespace = %q", ev.Namespace)
	}
}

func TestRepeatWithinWindowBumpsCount(t *testing.T) {
	e := newEnv(t, nil)
	cm := e.configMap("web")
	e.start()

	e.rec.Event(cm, corev1.EventTypeNormal, "Scaled", "scaled to 3")
	first := e.waitEvents("default", count(1))[0]

	e.clock.Advance(time.Minute)
	e.rec.Eventf(cm, corev1.EventTypeNormal, "Scaled", "scaled to %d", 3)
	evs := e.waitEvents("default", func(evs []corev1.Event) bool { return len(evs) > 1 || evs[0].Count == 2 })
	if len(evs) != 1 {
		t.Fatalf("%d Events, want the first one counted twice", len(evs))
	}
	ev := evs[0]
	if ev.Name != first.Name || !ev.FirstTimestamp.Time.Equal(t0) || !ev.LastTimestamp.Time.Equal(t0.Add(time.Minute)) {
		t.Errorf("after repeat: name %q, first %v, last %v; want %q, %v, %v",
			ev.Name, ev.FirstTimestamp, ev.LastTimestamp, first.Name, t0, t0.Add(time.Minute))
	}

	// The window runs from the last occurrence: 9 minutes after it is
	// still the same Event, though 10 after the first.
	e.clock.Advance(9 * time.Minute)
	e.rec.Event(cm, corev1.EventTypeNormal, "Scaled", "scaled to 3")
	evs = e.waitEvents("default", func(evs []corev1.Event) bool { return len(evs) > 1 || evs[0].Count == 3 })
	if len(evs) != 1 {
		t.Fatalf("%d Events, want the first one counted three times", len(evs))
	}
}

func TestDifferentMessageCreatesSecondEvent(t *testing.T) {
	e := newEnv(t, nil)
	cm := e.configMap("web")
	stop := e.start()

	e.rec.Event(cm, corev1.EventTypeNormal, "Scaled", "scaled to 3")
	e.rec.Event(cm, corev1.EventTypeNormal, "Scaled", "scaled to 4")
	e.rec.Event(cm, corev1.EventTypeNormal, "Scaled", "scaled to 3")
	stop()

	evs := e.events("default")
	if len(evs) != 2 {
		t.Fatalf("%d Events, want 2", len(evs))
	}
	// Names grow with time, forced apart on the stopped clock.
	if evs[0].Message != "scaled to 3" || evs[0].Count != 2 || evs[1].Message != "scaled to 4" || evs[1].Count != 1 {
		t.Errorf("events: (%q x%d), (%q x%d)", evs[0].Message, evs[0].Count, evs[1].Message, evs[1].Count)
	}
}

func TestRepeatAfterWindowCreatesNewEvent(t *testing.T) {
	e := newEnv(t, nil)
	cm := e.configMap("web")
	e.start()

	e.rec.Event(cm, corev1.EventTypeNormal, "Scaled", "scaled to 3")
	e.waitEvents("default", count(1))
	e.clock.Advance(events.DefaultAggregationWindow)
	e.rec.Event(cm, corev1.EventTypeNormal, "Scaled", "scaled to 3")
	evs := e.waitEvents("default", count(2))
	if evs[0].Count != 1 || evs[1].Count != 1 || !evs[1].FirstTimestamp.Time.Equal(t0.Add(events.DefaultAggregationWindow)) {
		t.Errorf("counts %d, %d; second first seen %v", evs[0].Count, evs[1].Count, evs[1].FirstTimestamp)
	}
}

func TestRepeatOfDeletedEventRecreatesIt(t *testing.T) {
	e := newEnv(t, nil)
	cm := e.configMap("web")
	e.start()

	e.rec.Event(cm, corev1.EventTypeNormal, "Scaled", "scaled to 3")
	first := e.waitEvents("default", count(1))[0]
	if err := e.c.Delete(context.Background(), &first); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Second)
	e.rec.Event(cm, corev1.EventTypeNormal, "Scaled", "scaled to 3")
	ev := e.waitEvents("default", count(1))[0]
	if ev.Name != first.Name || ev.Count != 2 || !ev.FirstTimestamp.Time.Equal(t0) || !ev.LastTimestamp.Time.Equal(t0.Add(time.Second)) {
		t.Errorf("recreated %q x%d first %v last %v; want %q x2 %v %v",
			ev.Name, ev.Count, ev.FirstTimestamp, ev.LastTimestamp, first.Name, t0, t0.Add(time.Second))
	}
}

func TestClusterScopedObjectEventsGoToDefault(t *testing.T) {
	e := newEnv(t, nil)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}
	if err := e.c.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	// RBAC names may hold colons, which an Event's name may not. (This
	// server does not serve RBAC; an Event's reference is not checked.)
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "system:widget-reader", UID: "u-role"}}
	stop := e.start()
	e.rec.Event(ns, corev1.EventTypeNormal, "Provisioned", "quota set")
	e.rec.Event(role, corev1.EventTypeNormal, "Reconciled", "rules up to date")
	stop()

	evs := e.events("default")
	if len(evs) != 2 {
		t.Fatalf("%d Events in default, want 2", len(evs))
	}
	byKind := map[string]corev1.Event{}
	for _, ev := range evs {
		byKind[ev.InvolvedObject.Kind] = ev
	}
	nsEv, roleEv := byKind["Namespace"], byKind["ClusterRole"]
	if nsEv.InvolvedObject.Namespace != "" || nsEv.InvolvedObject.Name != "team-a" || nsEv.InvolvedObject.APIVersion != "v1" {
		t.Errorf("namespace event involvedObject = %+v", nsEv.InvolvedObject)
	}
	if !strings.HasPrefix(nsEv.Name, "team-a.") {
		t.Errorf("namespace event name = %q", nsEv.Name)
	}
	if roleEv.InvolvedObject.APIVersion != "rbac.authorization.k8s.io/v1" || roleEv.InvolvedObject.Name != "system:widget-reader" {
		t.Errorf("role event involvedObject = %+v", roleEv.InvolvedObject)
	}
	if len(e.events("team-a")) != 0 {
		t.Error("an Event about a cluster-scoped object landed outside default")
	}
}

func TestKindFromSchemeOrTypeMeta(t *testing.T) {
	e := newEnv(t, nil)
	stop := e.start()
	// Built here, never read from a server: no TypeMeta.
	bare := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "creds", UID: "u-1"}}
	e.rec.Event(bare, corev1.EventTypeNormal, "Rotated", "new key")
	custom := &unstructured.Unstructured{}
	custom.SetAPIVersion("example.com/v1")
	custom.SetKind("Widget")
	custom.SetNamespace("default")
	custom.SetName("w1")
	e.rec.Event(custom, corev1.EventTypeNormal, "Built", "done")
	stop()

	got := map[string]string{}
	for _, ev := range e.events("default") {
		got[ev.InvolvedObject.Name] = ev.InvolvedObject.APIVersion + " " + ev.InvolvedObject.Kind
	}
	if got["creds"] != "v1 Secret" || got["w1"] != "example.com/v1 Widget" {
		t.Errorf("references: %v", got)
	}
}

func TestAnnotatedEventf(t *testing.T) {
	e := newEnv(t, nil)
	cm := e.configMap("web")
	stop := e.start()
	ann := map[string]string{"example.com/trace": "abc"}
	e.rec.AnnotatedEventf(cm, ann, corev1.EventTypeNormal, "Traced", "request %s", "abc")
	ann["example.com/trace"] = "changed after the call"
	stop()
	evs := e.events("default")
	if len(evs) != 1 || evs[0].Annotations["example.com/trace"] != "abc" || evs[0].Message != "request abc" {
		t.Fatalf("events: %+v", evs)
	}
}

func TestInvalidEventsDropped(t *testing.T) {
	e := newEnv(t, nil)
	e.quiet = false
	cm := e.configMap("web")
	stop := e.start()
	e.rec.Event(cm, "Info", "Hello", "not a type")
	e.rec.Event(&metav1.PartialObjectMetadata{ObjectMeta: cm.ObjectMeta}, corev1.EventTypeNormal, "Hello", "no kind")
	e.rec.Event(nil, corev1.EventTypeNormal, "Hello", "no object")
	stop()
	if n := len(e.events("default")); n != 0 {
		t.Errorf("%d Events written, want none", n)
	}
	if got := e.b.Dropped(events.DropInvalid); got != 3 {
		t.Errorf("Dropped(invalid) = %d, want 3", got)
	}
	if !e.logs.has(slog.LevelWarn, "event dropped: unsupported type") ||
		!e.logs.has(slog.LevelWarn, "event dropped: no reference to the object") {
		t.Errorf("logs: %q", e.logs.atLeast(slog.LevelWarn))
	}
}

func TestSpamFilterDropsBeyondBurst(t *testing.T) {
	e := newEnv(t, nil)
	web, db := e.configMap("web"), e.configMap("db")
	stop := e.start()

	// A reason each, so that none combine: the bucket is per object.
	for i := range events.DefaultSpamBurst + 5 {
		e.rec.Eventf(web, corev1.EventTypeNormal, fmt.Sprintf("Tick%d", i), "tick %d", i)
	}
	if got := e.b.Dropped(events.DropSpam); got != 5 {
		t.Errorf("Dropped(spam) after a burst = %d, want 5", got)
	}
	// Another object, and another type, have buckets of their own.
	e.rec.Event(db, corev1.EventTypeNormal, "Tick", "db")
	e.rec.Event(web, corev1.EventTypeWarning, "Tock", "warning")
	// One refill period earns one Event.
	e.clock.Advance(events.DefaultSpamRefill)
	e.rec.Event(web, corev1.EventTypeNormal, "Refilled", "refilled")
	e.rec.Event(web, corev1.EventTypeNormal, "Again", "over again")
	if got := e.b.Dropped(events.DropSpam); got != 6 {
		t.Errorf("Dropped(spam) after a refill = %d, want 6", got)
	}
	stop()

	msgs := map[string]bool{}
	for _, ev := range e.events("default") {
		msgs[ev.Message] = true
	}
	if len(msgs) != events.DefaultSpamBurst+3 || !msgs["tick 24"] || msgs["tick 25"] || !msgs["refilled"] || msgs["over again"] || !msgs["db"] || !msgs["warning"] {
		t.Errorf("%d Events written: %v", len(msgs), msgs)
	}
}

// TestSimilarEventsCombine: Events alike but for their message are
// written one by one until the tenth, which with every later one is
// counted by one Event "(combined from similar events): <latest>", as
// client-go's EventAggregator does; another reason is another group.
func TestSimilarEventsCombine(t *testing.T) {
	e := newEnv(t, nil)
	rs := e.configMap("rs")
	stop := e.start()
	for i := range 15 {
		e.rec.Eventf(rs, corev1.EventTypeNormal, "SuccessfulCreate", "Created pod: web-%d", i)
	}
	e.rec.Event(rs, corev1.EventTypeNormal, "ScalingReplicaSet", "Scaled up")
	stop()

	got := map[string]int32{}
	for _, ev := range e.events("default") {
		got[ev.Message] = ev.Count
	}
	want := map[string]int32{"Scaled up": 1, "(combined from similar events): Created pod: web-14": 6}
	for i := range 9 {
		want[fmt.Sprintf("Created pod: web-%d", i)] = 1
	}
	if !maps.Equal(got, want) {
		t.Errorf("Events (message: count):\n got %v\nwant %v", got, want)
	}
}

func TestFullBufferDropsAndCounts(t *testing.T) {
	reg := prometheus.NewRegistry()
	e := newEnv(t, func(o *events.Options) { o.BufferSize = 3; o.Registerer = reg })
	e.quiet = false
	cm := e.configMap("web")

	// No writer yet: the queue fills, and the calls still return.
	for i := range 5 {
		e.rec.Eventf(cm, corev1.EventTypeNormal, "Tick", "tick %d", i)
	}
	if got := e.b.Dropped(events.DropBufferFull); got != 2 {
		t.Errorf("Dropped(buffer_full) = %d, want 2", got)
	}
	if got := testutil.ToFloat64(e.b.DropsVec().WithLabelValues("buffer_full")); got != 2 {
		t.Errorf("%s{reason=buffer_full} = %v, want 2", events.MetricDropped, got)
	}
	if warns := e.logs.atLeast(slog.LevelWarn); len(warns) != 1 {
		t.Errorf("an overload logs one warning, got %q", warns)
	}
	stop := e.start()
	stop()
	evs := e.events("default")
	if len(evs) != 3 || evs[0].Message != "tick 0" || evs[2].Message != "tick 2" {
		t.Errorf("written: %+v", evs)
	}
}

func TestStartReturnsWhenContextEnds(t *testing.T) {
	e := newEnv(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.b.Start(ctx) }()

	select {
	case err := <-done:
		t.Fatalf("Start returned %v before its context ended", err)
	case <-time.After(20 * time.Millisecond):
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Start = %v, want nil", err)
	}
	if err := e.b.Start(context.Background()); !errors.Is(err, events.ErrStarted) {
		t.Errorf("second Start = %v, want ErrStarted", err)
	}
	// Recorded after the end: dropped, not left to wait for nobody.
	e.rec.Event(e.configMap("late"), corev1.EventTypeNormal, "Late", "too late")
	if got := e.b.Dropped(events.DropShutdown); got != 1 {
		t.Errorf("Dropped(shutdown) = %d, want 1", got)
	}
}

func TestNilRecorderRecordsNothing(t *testing.T) {
	var r *events.Recorder
	cm := &corev1.ConfigMap{}
	r.Event(cm, corev1.EventTypeNormal, "A", "b")
	r.Eventf(cm, corev1.EventTypeNormal, "A", "b %d", 1)
	r.AnnotatedEventf(cm, nil, corev1.EventTypeNormal, "A", "b")
}

func TestOptionsValidated(t *testing.T) {
	_, err := events.NewBroadcaster(events.Options{})
	if ce, ok := errors.AsType[*events.ConfigError](err); !ok || ce.Field != "Client" {
		t.Errorf("no client: %v", err)
	}
	_, err = events.NewBroadcaster(events.Options{Client: &fakeClient{}, BufferSize: -1})
	if ce, ok := errors.AsType[*events.ConfigError](err); !ok || ce.Field != "BufferSize" {
		t.Errorf("negative buffer: %v", err)
	}
}

func TestBroadcastersShareRegisterer(t *testing.T) {
	reg := prometheus.NewRegistry()
	a, err := events.NewBroadcaster(events.Options{Client: &fakeClient{}, Registerer: reg, Logger: slog.New(&logCapture{})})
	if err != nil {
		t.Fatal(err)
	}
	b, err := events.NewBroadcaster(events.Options{Client: &fakeClient{}, Registerer: reg, Logger: slog.New(&logCapture{})})
	if err != nil {
		t.Fatal(err)
	}
	a.Recorder("a").Event(&corev1.ConfigMap{}, "Bad", "A", "b")
	b.Recorder("b").Event(&corev1.ConfigMap{}, "Bad", "A", "b")
	n, err := testutil.GatherAndCount(reg, events.MetricDropped)
	if err != nil || n != len(events.DropReasons) {
		t.Errorf("series = %d, %v; want %d", n, err, len(events.DropReasons))
	}
	if got := testutil.ToFloat64(a.DropsVec().WithLabelValues(string(events.DropInvalid))); got != 2 {
		t.Errorf("shared invalid count = %v, want 2", got)
	}
}
