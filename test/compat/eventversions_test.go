package compat_test

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// TestEventVersionsShareStorage checks that core/v1 and events.k8s.io/v1
// Events are one set of objects, as in kube-apiserver: an Event written
// through either API is read, selected and watched through both, with
// its fields converted (regarding is involvedObject, note is message,
// reportingController is reportingComponent, the deprecated* fields are
// core's source, timestamps and count). It runs over JSON and protobuf.
func TestEventVersionsShareStorage(t *testing.T) {
	srv := apiservertest.Start(t)
	for _, tc := range []struct{ name, contentType string }{
		{"json", "application/json"},
		{"protobuf", "application/vnd.kubernetes.protobuf"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := rest.CopyConfig(srv.Config)
			cfg.ContentType = tc.contentType
			cs, err := kubernetes.NewForConfig(cfg)
			if err != nil {
				t.Fatal(err)
			}
			ns := createNamespace(t, cs, "event-versions-"+tc.name)
			testEventVersions(t, cs, ns)
		})
	}
}

func testEventVersions(t *testing.T, cs kubernetes.Interface, ns string) {
	ctx := t.Context()
	core, ev := cs.CoreV1().Events(ns), cs.EventsV1().Events(ns)
	start, err := core.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	opts := metav1.ListOptions{ResourceVersion: start.ResourceVersion}
	coreWatch, err := core.Watch(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer coreWatch.Stop()
	evWatch, err := ev.Watch(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer evWatch.Stop()

	eventTime := metav1.NewMicroTime(time.Date(2026, 1, 2, 3, 4, 5, 123456000, time.UTC))
	observed := metav1.NewMicroTime(time.Date(2026, 1, 2, 3, 4, 6, 0, time.UTC))
	first := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	last := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 7, 0, time.UTC))
	e1, err := ev.Create(ctx, &eventsv1.Event{
		ObjectMeta: metav1.ObjectMeta{Name: "e1"},
		EventTime:  eventTime, Series: &eventsv1.EventSeries{Count: 2, LastObservedTime: observed},
		ReportingController: "ctrl.example/x", ReportingInstance: "inst-1",
		Action: "Act", Reason: "Why", Type: "Normal", Note: "hello",
		Regarding: corev1.ObjectReference{Kind: "Pod", Name: "p1", Namespace: ns, APIVersion: "v1", UID: "u1"},
		Related:   &corev1.ObjectReference{Kind: "Node", Name: "n1"},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e2, err := core.Create(ctx, &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "e2"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "p2", Namespace: ns},
		Reason:         "Pulled", Message: "msg2", Type: "Warning",
		Source:         corev1.EventSource{Component: "kubelet", Host: "node-a"},
		FirstTimestamp: first, LastTimestamp: last, Count: 3,
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	// Each version reads the other's write, converted.
	gotCore, err := core.Get(ctx, "e1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantCore := corev1.Event{
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "p1", Namespace: ns, APIVersion: "v1", UID: "u1"},
		Reason:         "Why", Message: "hello", Type: "Normal", EventTime: eventTime,
		Series: &corev1.EventSeries{Count: 2, LastObservedTime: observed},
		Action: "Act", Related: &corev1.ObjectReference{Kind: "Node", Name: "n1"},
		ReportingController: "ctrl.example/x", ReportingInstance: "inst-1",
	}
	wantCore.ObjectMeta = e1.ObjectMeta
	gotCore.TypeMeta = metav1.TypeMeta{}
	if !apiequality.Semantic.DeepEqual(*gotCore, wantCore) {
		t.Errorf("e1 read through core/v1:\ngot  %+v\nwant %+v", *gotCore, wantCore)
	}
	gotEv, err := ev.Get(ctx, "e2", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantEv := eventsv1.Event{
		Regarding: corev1.ObjectReference{Kind: "Pod", Name: "p2", Namespace: ns},
		Reason:    "Pulled", Note: "msg2", Type: "Warning",
		DeprecatedSource:         corev1.EventSource{Component: "kubelet", Host: "node-a"},
		DeprecatedFirstTimestamp: first, DeprecatedLastTimestamp: last, DeprecatedCount: 3,
	}
	wantEv.ObjectMeta = e2.ObjectMeta
	gotEv.TypeMeta = metav1.TypeMeta{}
	if !apiequality.Semantic.DeepEqual(*gotEv, wantEv) {
		t.Errorf("e2 read through events.k8s.io/v1:\ngot  %+v\nwant %+v", *gotEv, wantEv)
	}

	// Field selectors work on each version's own fields, whichever
	// version wrote the Event; core's source falls back to the
	// reporting controller.
	selectors := []struct {
		api, selector string
		want          []string
		wantErr       bool
	}{
		{api: "core", selector: "source=ctrl.example/x", want: []string{"e1"}},
		{api: "core", selector: "reportingComponent=ctrl.example/x", want: []string{"e1"}},
		{api: "core", selector: "source=kubelet", want: []string{"e2"}},
		{api: "core", selector: "involvedObject.name=p1", want: []string{"e1"}},
		{api: "core", selector: "involvedObject.kind=Pod,involvedObject.uid=u1", want: []string{"e1"}},
		{api: "core", selector: "type=Warning", want: []string{"e2"}},
		{api: "core", selector: "reason=Why", want: []string{"e1"}},
		{api: "core", selector: "regarding.name=p1", wantErr: true},
		{api: "events", selector: "regarding.name=p2", want: []string{"e2"}},
		{api: "events", selector: "regarding.kind=Pod,regarding.uid=u1", want: []string{"e1"}},
		{api: "events", selector: "reportingController=ctrl.example/x", want: []string{"e1"}},
		{api: "events", selector: "reportingController=kubelet", want: nil},
		{api: "events", selector: "type=Warning", want: []string{"e2"}},
		{api: "events", selector: "reason=Why", want: []string{"e1"}},
		{api: "events", selector: "source=kubelet", wantErr: true},
		{api: "events", selector: "involvedObject.name=p2", wantErr: true},
	}
	for _, tc := range selectors {
		var got []string
		var err error
		if tc.api == "core" {
			var l *corev1.EventList
			if l, err = core.List(ctx, metav1.ListOptions{FieldSelector: tc.selector}); err == nil {
				for _, e := range l.Items {
					got = append(got, e.Name)
				}
			}
		} else {
			var l *eventsv1.EventList
			if l, err = ev.List(ctx, metav1.ListOptions{FieldSelector: tc.selector}); err == nil {
				for _, e := range l.Items {
					got = append(got, e.Name)
				}
			}
		}
		if tc.wantErr {
			if !apierrors.IsBadRequest(err) {
				t.Errorf("%s list %q: got error %v, want 400", tc.api, tc.selector, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s list %q: %v", tc.api, tc.selector, err)
			continue
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s list %q: got %v, want %v", tc.api, tc.selector, got, tc.want)
		}
	}

	// A write through one version is an event of the other's watch.
	gotCore.Message = "hello again"
	updated, err := core.Update(ctx, gotCore, metav1.UpdateOptions{FieldManager: "updater"})
	if err != nil {
		t.Fatal(err)
	}
	// kube-apiserver's field manager cannot convert between the two
	// groups, so the events.k8s.io manager's entry goes and the core
	// one is recorded.
	var managers []string
	for _, m := range updated.ManagedFields {
		managers = append(managers, m.Manager+" "+m.APIVersion+" "+string(m.Operation))
	}
	if want := []string{"updater v1 Update"}; !slices.Equal(managers, want) {
		t.Errorf("managed fields after a core/v1 update of an events.k8s.io/v1 write: %q, want %q", managers, want)
	}
	if err := ev.Delete(ctx, "e2", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	type seen struct{ typ, name, text string }
	want := []seen{{"ADDED", "e1", "hello"}, {"ADDED", "e2", "msg2"}, {"MODIFIED", "e1", "hello again"}, {"DELETED", "e2", "msg2"}}
	var gotCoreWatch, gotEvWatch []seen
	for range want {
		e := receive(t, coreWatch.ResultChan(), "a core/v1 watch event")
		o, ok := e.Object.(*corev1.Event)
		if !ok {
			t.Fatalf("core/v1 watch sent %T", e.Object)
		}
		gotCoreWatch = append(gotCoreWatch, seen{string(e.Type), o.Name, o.Message})
		e = receive(t, evWatch.ResultChan(), "an events.k8s.io/v1 watch event")
		n, ok := e.Object.(*eventsv1.Event)
		if !ok {
			t.Fatalf("events.k8s.io/v1 watch sent %T", e.Object)
		}
		gotEvWatch = append(gotEvWatch, seen{string(e.Type), n.Name, n.Note})
	}
	if !slices.Equal(gotCoreWatch, want) {
		t.Errorf("core/v1 watch: got %v, want %v", gotCoreWatch, want)
	}
	if !slices.Equal(gotEvWatch, want) {
		t.Errorf("events.k8s.io/v1 watch: got %v, want %v", gotEvWatch, want)
	}
}
