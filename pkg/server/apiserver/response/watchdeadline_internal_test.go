package response

import (
	"net/http"
	"os"
	"sync"
	"testing"
	"time"
)

// deadlineWriter is a connection's ResponseWriter as far as a watch sees
// it: with stalled set its writes block, as when the client stops
// reading, until a write deadline is set that has passed.
type deadlineWriter struct {
	http.ResponseWriter
	stalled bool

	mu        sync.Mutex
	changed   *sync.Cond
	deadline  time.Time
	deadlines int // how many were set
}

func newDeadlineWriter(stalled bool) *deadlineWriter {
	w := &deadlineWriter{stalled: stalled}
	w.changed = sync.NewCond(&w.mu)
	return w
}

func (w *deadlineWriter) Header() http.Header { return http.Header{} }
func (w *deadlineWriter) WriteHeader(int)     {}
func (w *deadlineWriter) Flush()              {}

func (w *deadlineWriter) SetWriteDeadline(t time.Time) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.deadline = t
	w.deadlines++
	w.changed.Broadcast()
	return nil
}

func (w *deadlineWriter) Write(b []byte) (int, error) {
	if !w.stalled {
		return len(b), nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.deadline.IsZero() || time.Now().Before(w.deadline) {
		w.changed.Wait()
	}
	return 0, os.ErrDeadlineExceeded
}

// TestWatchWriteTimeout: a write to a client that stopped reading is cut
// off once it has run for the write timeout, while writes to a reading
// client never carry a deadline at all.
func TestWatchWriteTimeout(t *testing.T) {
	const timeout = 50 * time.Millisecond
	for _, tc := range []struct {
		name          string
		stalled       bool
		wantErr       bool
		wantDeadlines int
	}{
		{"reading client", false, false, 0},
		{"stalled client", true, true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newDeadlineWriter(tc.stalled)
			ws := NewWatchStream(w, WatchConfig{WriteTimeout: timeout})
			done := make(chan struct{})
			start := time.Now()
			go func() {
				defer close(done)
				defer ws.finish()
				ws.start()
				ws.buf.WriteString(`{"type":"ADDED","object":{}}` + "\n")
				ws.flush()
				// Idle past the timeout: an idle stream is not cut off.
				time.Sleep(3 * timeout)
			}()
			select {
			case <-done:
			case <-time.After(20 * timeout):
				t.Fatalf("stream still blocked after %v with a write timeout of %v", 20*timeout, timeout)
			}
			if (ws.err != nil) != tc.wantErr {
				t.Errorf("stream error %v, want error: %v", ws.err, tc.wantErr)
			}
			if tc.wantErr && time.Since(start) < timeout {
				t.Errorf("cut off after %v, before the write timeout of %v", time.Since(start), timeout)
			}
			w.mu.Lock()
			defer w.mu.Unlock()
			if w.deadlines != tc.wantDeadlines {
				t.Errorf("%d deadlines set, want %d", w.deadlines, tc.wantDeadlines)
			}
		})
	}
}
