package events_test

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/events"
)

// The writer's error handling, against a client whose answers the test
// scripts, in a synctest bubble so backoff waits pass in virtual time.

type call struct {
	verb, name string
	at         time.Time
}

type fakeClient struct {
	mu    sync.Mutex
	calls []call
	// answer decides each call's outcome; nil succeeds.
	answer func(ctx context.Context, n int, verb string) error
}

func (f *fakeClient) do(ctx context.Context, verb string, obj client.Object) error {
	f.mu.Lock()
	n := len(f.calls)
	f.calls = append(f.calls, call{verb, obj.GetName(), time.Now()})
	answer := f.answer
	f.mu.Unlock()
	if answer == nil {
		return nil
	}
	return answer(ctx, n, verb)
}

func (f *fakeClient) Create(ctx context.Context, obj client.Object, _ ...client.WriteOption) error {
	return f.do(ctx, "create", obj)
}

func (f *fakeClient) Patch(ctx context.Context, obj client.Object, _ types.PatchType, _ []byte, _ ...client.WriteOption) error {
	return f.do(ctx, "patch", obj)
}

func (f *fakeClient) Scheme() *runtime.Scheme { return client.NewScheme() }

func (f *fakeClient) log() []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]call(nil), f.calls...)
}

func status(code int32, reason metav1.StatusReason) error {
	return &client.StatusError{ErrStatus: metav1.Status{Code: code, Reason: reason, Message: string(reason)}}
}

var errConnRefused = &url.Error{Op: "Post", URL: "https://127.0.0.1:1", Err: &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}}

// bubble runs fn with a started Broadcaster on fc, inside synctest; it
// ends Start and waits for it before returning.
func bubble(t *testing.T, fc *fakeClient, adjust func(*events.Options), fn func(t *testing.T, b *events.Broadcaster, rec *events.Recorder, logs *logCapture, cancel func())) {
	synctest.Test(t, func(t *testing.T) {
		logs := &logCapture{}
		opts := events.Options{Client: fc, Logger: slog.New(logs)}
		if adjust != nil {
			adjust(&opts)
		}
		b, err := events.NewBroadcaster(opts)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- b.Start(ctx) }()
		fn(t, b, b.Recorder("c"), logs, cancel)
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Start = %v", err)
		}
	})
}

var obj = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: "u"}}

func TestRetriableErrorsAreRetried(t *testing.T) {
	for name, fail := range map[string]error{
		"503":        status(http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable),
		"429":        status(http.StatusTooManyRequests, metav1.StatusReasonTooManyRequests),
		"connection": errConnRefused,
		"timeout":    context.DeadlineExceeded,
	} {
		t.Run(name, func(t *testing.T) {
			fc := &fakeClient{answer: func(_ context.Context, n int, _ string) error {
				if n < 2 {
					return fail
				}
				return nil
			}}
			bubble(t, fc, nil, func(t *testing.T, b *events.Broadcaster, rec *events.Recorder, logs *logCapture, _ func()) {
				rec.Event(obj, corev1.EventTypeNormal, "A", "m")
				time.Sleep(time.Hour) // every retry, in virtual time
				calls := fc.log()
				if len(calls) != 3 || calls[0].name != calls[2].name {
					t.Fatalf("calls: %+v; want three creates of one name", calls)
				}
				// Waits of RetryBackoff and twice that, each jittered
				// down by at most half.
				if gap := calls[2].at.Sub(calls[0].at); gap < events.DefaultRetryBackoff/2+events.DefaultRetryBackoff {
					t.Errorf("retried after %v, sooner than the backoff allows", gap)
				}
				if msgs := logs.atLeast(slog.LevelWarn); len(msgs) > 0 {
					t.Errorf("a write that got through logged %q", msgs)
				}
			})
		})
	}
}

func TestRetriesExhausted(t *testing.T) {
	fc := &fakeClient{answer: func(context.Context, int, string) error { return errConnRefused }}
	bubble(t, fc, nil, func(t *testing.T, b *events.Broadcaster, rec *events.Recorder, logs *logCapture, _ func()) {
		rec.Event(obj, corev1.EventTypeNormal, "A", "m")
		time.Sleep(time.Hour) // every retry, in virtual time
		if n := len(fc.log()); n != events.DefaultMaxAttempts {
			t.Errorf("%d attempts, want %d", n, events.DefaultMaxAttempts)
		}
		if b.Dropped(events.DropFailed) != 1 || !logs.has(slog.LevelError, "event not written: retries exhausted") {
			t.Errorf("failed = %d, logs %q", b.Dropped(events.DropFailed), logs.atLeast(slog.LevelWarn))
		}
	})
}

func TestClientErrorsAreNotRetried(t *testing.T) {
	for name, tc := range map[string]struct {
		err   error
		level slog.Level
	}{
		"invalid":   {status(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid), slog.LevelWarn},
		"forbidden": {status(http.StatusForbidden, metav1.StatusReasonForbidden), slog.LevelWarn},
		"namespace terminating": {&client.StatusError{ErrStatus: metav1.Status{
			Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden,
			Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: corev1.NamespaceTerminatingCause}}},
		}}, slog.LevelDebug},
		"already exists":      {status(http.StatusConflict, metav1.StatusReasonAlreadyExists), slog.LevelDebug},
		"not a server answer": {errors.New("cannot encode"), slog.LevelWarn},
	} {
		t.Run(name, func(t *testing.T) {
			fc := &fakeClient{answer: func(context.Context, int, string) error { return tc.err }}
			bubble(t, fc, nil, func(t *testing.T, b *events.Broadcaster, rec *events.Recorder, logs *logCapture, _ func()) {
				rec.Event(obj, corev1.EventTypeNormal, "A", "m")
				time.Sleep(time.Hour) // every retry, in virtual time
				if n := len(fc.log()); n != 1 {
					t.Errorf("%d attempts, want 1", n)
				}
				if b.Dropped(events.DropRejected) != 1 {
					t.Errorf("rejected = %d, want 1", b.Dropped(events.DropRejected))
				}
				if got := logs.atLeast(slog.LevelWarn); (tc.level >= slog.LevelWarn) != (len(got) == 1) {
					t.Errorf("warnings %q; want a warning: %v", got, tc.level >= slog.LevelWarn)
				}
			})
		})
	}
}

func TestCreateRetriedAfterLostAnswerIsNotDuplicated(t *testing.T) {
	fc := &fakeClient{answer: func(_ context.Context, n int, _ string) error {
		switch n {
		case 0: // written, but the answer never came
			return context.DeadlineExceeded
		case 1:
			return status(http.StatusConflict, metav1.StatusReasonAlreadyExists)
		}
		return nil
	}}
	bubble(t, fc, nil, func(t *testing.T, b *events.Broadcaster, rec *events.Recorder, logs *logCapture, _ func()) {
		rec.Event(obj, corev1.EventTypeNormal, "A", "m")
		rec.Event(obj, corev1.EventTypeNormal, "A", "m")
		time.Sleep(time.Hour) // every retry, in virtual time
		calls := fc.log()
		if len(calls) != 3 || calls[2].verb != "patch" || calls[2].name != calls[0].name {
			t.Errorf("calls %+v; want create, create, then a patch of that Event", calls)
		}
		if b.Dropped(events.DropRejected) != 0 || len(logs.atLeast(slog.LevelWarn)) != 0 {
			t.Errorf("rejected %d, logs %q", b.Dropped(events.DropRejected), logs.atLeast(slog.LevelWarn))
		}
	})
}

func TestShutdownDuringBackoffWritesOnceMore(t *testing.T) {
	fc := &fakeClient{answer: func(_ context.Context, n int, _ string) error {
		if n == 0 {
			return status(http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable)
		}
		return nil
	}}
	bubble(t, fc, nil, func(t *testing.T, b *events.Broadcaster, rec *events.Recorder, logs *logCapture, cancel func()) {
		rec.Event(obj, corev1.EventTypeNormal, "A", "first")
		rec.Event(obj, corev1.EventTypeNormal, "A", "second")
		synctest.Wait() // the writer waits out its backoff
		cancel()
		synctest.Wait()
		if n := len(fc.log()); n != 3 {
			t.Errorf("%d calls, want the failed one, its last try and the queued one", n)
		}
		if msgs := logs.atLeast(slog.LevelWarn); len(msgs) > 0 {
			t.Errorf("a clean shutdown logged %q", msgs)
		}
	})
}

func TestFlushTimeoutBoundsShutdown(t *testing.T) {
	var block chan struct{}
	fc := &fakeClient{answer: func(ctx context.Context, n int, _ string) error {
		if n == 0 {
			<-block // holds the writer until the test has queued more
			return nil
		}
		<-ctx.Done() // the server hangs
		return ctx.Err()
	}}
	bubble(t, fc, nil, func(t *testing.T, b *events.Broadcaster, rec *events.Recorder, logs *logCapture, cancel func()) {
		block = make(chan struct{}) // made in the bubble, so waiting on it is durable
		rec.Event(obj, corev1.EventTypeNormal, "A", "held")
		synctest.Wait()
		for _, m := range []string{"a", "b", "c"} {
			rec.Event(obj, corev1.EventTypeNormal, "A", m)
		}
		cancel()
		close(block)
		time.Sleep(time.Minute) // past the flush timeout, in virtual time
		// One write hangs until the flush deadline; the two behind it
		// are dropped without being tried.
		if b.Dropped(events.DropFailed) != 1 || b.Dropped(events.DropShutdown) != 2 {
			t.Errorf("failed %d, shutdown %d; want 1, 2", b.Dropped(events.DropFailed), b.Dropped(events.DropShutdown))
		}
		if !logs.has(slog.LevelWarn, "events dropped: shutdown flush timed out") {
			t.Errorf("logs %q", logs.atLeast(slog.LevelWarn))
		}
	})
}
