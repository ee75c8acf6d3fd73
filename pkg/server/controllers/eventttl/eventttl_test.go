package eventttl_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/manager"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/eventttl"
)

// TestEventTTL runs the controller on a fake clock against a real
// server. Events expire exactly TTL after their newest timestamp: one
// written once goes at its TTL, one refreshed halfway (and one whose
// series was observed later) lives on until TTL after that, whichever
// API group wrote them: the controller watches core/v1 Events, which
// events.k8s.io/v1 ones are too.
func TestEventTTL(t *testing.T) {
	env := envtest.Start(t, envtest.WithoutControllers())
	c := newClient(t, env.Config())
	ctx := context.Background()
	// Past every creationTimestamp the server stamps during the test,
	// so the timestamps set here are the newest.
	t0 := time.Now().Truncate(time.Second).Add(time.Minute)
	const ttl = time.Hour
	fake := newFakeClock(t0)

	once := coreEvent("once", t0)
	refreshed := coreEvent("refreshed", t0)
	series := coreEvent("series", t0)
	series.EventTime = metav1.NewMicroTime(t0)
	// kube-apiserver requires these of any Event with an event time.
	series.ReportingController, series.ReportingInstance, series.Action = "eventttl-test", "test", "Testing"
	series.Series = &corev1.EventSeries{Count: 2, LastObservedTime: metav1.NewMicroTime(t0.Add(ttl / 2))}
	newOnce := eventsEvent("new-once", t0, nil)
	newSeries := eventsEvent("new-series", t0, &eventsv1.EventSeries{Count: 3, LastObservedTime: metav1.NewMicroTime(t0.Add(ttl / 2))})
	for _, ev := range []client.Object{once, refreshed, series, newOnce, newSeries} {
		must(t, c.Create(ctx, ev))
	}
	m := env.StartManager(t, func(m *manager.Manager) error {
		return eventttl.Setup(m, eventttl.Options{TTL: ttl, Clock: fake})
	}, envtest.WithLogs(&envtest.Logs{}, slog.LevelInfo))

	// Time moves only while the controller is idle (it has done the
	// reconciles the test expects of it), so every requeue is computed
	// and scheduled at one instant.
	settle := func(n int) {
		t.Helper()
		envtest.Eventually(t, "the reconciles to finish", func() error {
			return reconciled(m, map[string]int{eventttl.ControllerName: n})
		})
	}
	settle(5)
	// Each looked and asked to look again at its expiry; the queue's
	// timer is set for the first, to the nanosecond.
	if !fake.due(t0.Add(ttl)) {
		t.Errorf("no requeue at the first expiry, %v", t0.Add(ttl))
	}
	fake.Step(ttl / 2)
	refreshed.LastTimestamp = metav1.NewTime(fake.Now())
	refreshed.Count++
	must(t, c.Update(ctx, refreshed))
	settle(6)

	fake.Step(ttl/2 - time.Second)
	exist(t, c, true, once, refreshed, series, newOnce, newSeries)

	fake.Step(time.Second)
	envtest.Eventually(t, "the events written once to expire", func() error { return gone(c, once, newOnce) })
	// once expired; refreshed, due then too, was requeued.
	settle(9)
	exist(t, c, true, refreshed, series, newSeries)

	fake.Step(ttl/2 - time.Second)
	exist(t, c, true, refreshed, series, newSeries)
	fake.Step(time.Second)
	envtest.Eventually(t, "the refreshed events to expire", func() error { return gone(c, refreshed, series, newSeries) })
}

// reconciled checks that each controller has finished exactly want
// reconciles.
func reconciled(m *manager.Manager, want map[string]int) error {
	families, err := m.Registry().Gather()
	if err != nil {
		return err
	}
	got := map[string]int{}
	for _, f := range families {
		if f.GetName() != "controller_runtime_reconcile_total" {
			continue
		}
		for _, metric := range f.GetMetric() {
			for _, l := range metric.GetLabel() {
				if l.GetName() == "controller" {
					got[l.GetValue()] += int(metric.GetCounter().GetValue())
				}
			}
		}
	}
	for name, n := range want {
		if got[name] != n {
			return fmt.Errorf("%s: %d reconciles, want %d", name, got[name], n)
		}
	}
	return nil
}

func TestLastWrite(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	core := &corev1.Event{
		ObjectMeta:    metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(at(0))},
		LastTimestamp: metav1.NewTime(at(time.Minute)),
		EventTime:     metav1.NewMicroTime(at(2 * time.Minute)),
	}
	if got := eventttl.LastWrite(core); !got.Equal(at(2 * time.Minute)) {
		t.Errorf("core: %v, want eventTime", got)
	}
	core.Series = &corev1.EventSeries{LastObservedTime: metav1.NewMicroTime(at(3 * time.Minute))}
	if got := eventttl.LastWrite(core); !got.Equal(at(3 * time.Minute)) {
		t.Errorf("core with series: %v, want series.lastObservedTime", got)
	}
	// An events.k8s.io Event's deprecatedLastTimestamp is lastTimestamp.
	ev := &corev1.Event{
		ObjectMeta:    metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(at(5 * time.Minute))},
		LastTimestamp: metav1.NewTime(at(4 * time.Minute)),
	}
	if got := eventttl.LastWrite(ev); !got.Equal(at(5 * time.Minute)) {
		t.Errorf("created after lastTimestamp: %v, want creationTimestamp", got)
	}
	ev.LastTimestamp = metav1.NewTime(at(6 * time.Minute))
	if got := eventttl.LastWrite(ev); !got.Equal(at(6 * time.Minute)) {
		t.Errorf("lastTimestamp after creation: %v, want lastTimestamp", got)
	}
}

func coreEvent(name string, last time.Time) *corev1.Event {
	return &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Namespace: "default", Name: name},
		InvolvedObject: corev1.ObjectReference{Kind: "ConfigMap", Namespace: "default", Name: "x", APIVersion: "v1"},
		Reason:         "Test", Message: "test event", Type: corev1.EventTypeNormal,
		Source:         corev1.EventSource{Component: "eventttl-test"},
		FirstTimestamp: metav1.NewTime(last), LastTimestamp: metav1.NewTime(last), Count: 1,
	}
}

func eventsEvent(name string, at time.Time, series *eventsv1.EventSeries) *eventsv1.Event {
	return &eventsv1.Event{
		ObjectMeta:          metav1.ObjectMeta{Namespace: "default", Name: name},
		EventTime:           metav1.NewMicroTime(at),
		Series:              series,
		ReportingController: "setpoint.dev/eventttl-test", ReportingInstance: "test",
		Action: "Testing", Reason: "Test", Note: "test event", Type: corev1.EventTypeNormal,
		Regarding: corev1.ObjectReference{Kind: "ConfigMap", Namespace: "default", Name: "x", APIVersion: "v1"},
	}
}

// exist checks that each event does (or does not) exist.
func exist(t *testing.T, c *client.Client, want bool, evs ...client.Object) {
	t.Helper()
	for _, ev := range evs {
		err := get(c, ev)
		if got := err == nil; got != want || (err != nil && !client.IsNotFound(err)) {
			t.Errorf("%T %s: exists %v (%v), want %v", ev, ev.GetName(), got, err, want)
		}
	}
}

// gone returns nil once every event is gone.
func gone(c *client.Client, evs ...client.Object) error {
	var errs []error
	for _, ev := range evs {
		switch err := get(c, ev); {
		case err == nil:
			errs = append(errs, fmt.Errorf("%T %s still exists", ev, ev.GetName()))
		case !client.IsNotFound(err):
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func get(c *client.Client, ev client.Object) error {
	key := types.NamespacedName{Namespace: ev.GetNamespace(), Name: ev.GetName()}
	switch ev.(type) {
	case *corev1.Event:
		return c.Get(context.Background(), key, &corev1.Event{})
	default:
		return c.Get(context.Background(), key, &eventsv1.Event{})
	}
}

func newClient(t *testing.T, cfg *rest.Config) *client.Client {
	t.Helper()
	c, err := client.New(cfg, client.Options{Logger: slog.New(slog.DiscardHandler)})
	must(t, err)
	return c
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
