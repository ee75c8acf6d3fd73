package events_test

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/clock"
	"github.com/setpoint-dev/setpoint/pkg/events"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// t0 is the fake clock's start (see export_test.go).
var t0 = events.T0

// fakeClock moves only when a test advances it; its timers fire then.
type fakeClock struct{ *clock.Fake }

func newFakeClock() *fakeClock { return &fakeClock{clock.NewFake(t0)} }

// Advance moves the clock d forward.
func (c *fakeClock) Advance(d time.Duration) { c.Step(d) }

// logCapture keeps every record logged through it.
type logCapture struct {
	mu      sync.Mutex
	records []slog.Record
}

func (l *logCapture) Enabled(context.Context, slog.Level) bool { return true }
func (l *logCapture) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logCapture) WithGroup(string) slog.Handler            { return l }
func (l *logCapture) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.records = append(l.records, r.Clone())
	return nil
}

// atLeast returns the messages logged at level or above.
func (l *logCapture) atLeast(level slog.Level) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var msgs []string
	for _, r := range l.records {
		if r.Level >= level {
			msgs = append(msgs, r.Level.String()+" "+r.Message)
		}
	}
	return msgs
}

func (l *logCapture) has(level slog.Level, msg string) bool {
	return slices.Contains(l.atLeast(level), level.String()+" "+msg)
}

// env is a recorder on a fake clock writing to a real server.
type env struct {
	t     *testing.T
	srv   *apiservertest.Server
	c     *client.Client
	clock *fakeClock
	logs  *logCapture
	b     *events.Broadcaster
	rec   *events.Recorder
	// quiet, unless a test says otherwise, checks at the end that
	// nothing was logged at Warn or above: a clean run, shutdown
	// included, logs no complaints.
	quiet bool
}

func newEnv(t *testing.T, adjust func(*events.Options)) *env {
	t.Helper()
	srv := apiservertest.Start(t)
	c, err := client.New(srv.Config, client.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, srv: srv, c: c, clock: newFakeClock(), logs: &logCapture{}, quiet: true}
	opts := events.Options{Client: c, Host: "node-1", Clock: e.clock, Logger: slog.New(e.logs)}
	if adjust != nil {
		adjust(&opts)
	}
	if e.b, err = events.NewBroadcaster(opts); err != nil {
		t.Fatal(err)
	}
	e.rec = e.b.Recorder("widget-controller")
	t.Cleanup(func() {
		if msgs := e.logs.atLeast(slog.LevelWarn); e.quiet && len(msgs) > 0 {
			t.Errorf("logged complaints: %q", msgs)
		}
	})
	return e
}

// start runs the writer; the returned stop ends it and checks that Start
// returned nil. Stopping flushes the queue, so after stop every Event
// recorded before it is on the server.
func (e *env) start() (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.b.Start(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					e.t.Errorf("Start returned %v", err)
				}
			case <-time.After(30 * time.Second): // a hang, not a speed limit
				e.t.Fatal("Start did not return after its context ended")
			}
		})
	}
	e.t.Cleanup(stop)
	return stop
}

// configMap creates a ConfigMap in default and returns the server's copy.
func (e *env) configMap(name string) *corev1.ConfigMap {
	e.t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}}
	if err := e.c.Create(context.Background(), cm); err != nil {
		e.t.Fatal(err)
	}
	return cm
}

// events lists the Events in ns, oldest name first.
func (e *env) events(ns string) []corev1.Event {
	e.t.Helper()
	var list corev1.EventList
	if err := e.c.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
		e.t.Fatal(err)
	}
	slices.SortFunc(list.Items, func(a, b corev1.Event) int { return strings.Compare(a.Name, b.Name) })
	return list.Items
}

// waitEvents polls ns until ok holds for its Events, and returns them.
func (e *env) waitEvents(ns string, ok func([]corev1.Event) bool) []corev1.Event {
	e.t.Helper()
	deadline := time.Now().Add(30 * time.Second) // a hang, not a speed limit
	for {
		evs := e.events(ns)
		if ok(evs) {
			return evs
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("events in %s never reached the expected state; last seen: %+v", ns, evs)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func count(n int) func([]corev1.Event) bool {
	return func(evs []corev1.Event) bool { return len(evs) == n }
}
