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
// reading, until the write deadline passes.
type deadlineWriter struct {
	http.ResponseWriter
	stalled bool

	mu        sync.Mutex
	deadline  time.Time
	deadlines []time.Time // every deadline set, in order
}

func (w *deadlineWriter) Header() http.Header { return http.Header{} }
func (w *deadlineWriter) WriteHeader(int)     {}
func (w *deadlineWriter) Flush()              {}

func (w *deadlineWriter) SetWriteDeadline(t time.Time) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.deadline = t
	w.deadlines = append(w.deadlines, t)
	return nil
}

func (w *deadlineWriter) Write(b []byte) (int, error) {
	if !w.stalled {
		return len(b), nil
	}
	w.mu.Lock()
	d := w.deadline
	w.mu.Unlock()
	if d.IsZero() {
		select {} // a stalled write without a deadline never returns
	}
	time.Sleep(time.Until(d))
	return 0, os.ErrDeadlineExceeded
}

// TestWatchFlushDeadline: each flush to a watch client runs under the
// write timeout and clears it afterwards, so a stalled client is cut off
// while an idle stream carries no deadline.
func TestWatchFlushDeadline(t *testing.T) {
	const timeout = 50 * time.Millisecond
	for _, tc := range []struct {
		name         string
		stalled      bool
		wantErr      bool
		wantLastZero bool // the deadline is cleared once the flush is done
	}{
		{"reading client", false, false, true},
		{"stalled client", true, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &deadlineWriter{stalled: tc.stalled}
			ws := NewWatchStream(w, WatchConfig{WriteTimeout: timeout})
			ws.buf.WriteString(`{"type":"ADDED","object":{}}` + "\n")
			done := make(chan struct{})
			start := time.Now()
			go func() {
				ws.flush()
				close(done)
			}()
			select {
			case <-done:
			case <-time.After(10 * timeout):
				t.Fatalf("flush still blocked after %v with a write timeout of %v", 10*timeout, timeout)
			}
			if (ws.err != nil) != tc.wantErr {
				t.Errorf("stream error %v, want error: %v", ws.err, tc.wantErr)
			}
			w.mu.Lock()
			defer w.mu.Unlock()
			if len(w.deadlines) == 0 || w.deadlines[0].Before(start.Add(timeout)) || w.deadlines[0].After(time.Now().Add(timeout)) {
				t.Fatalf("deadlines %v, want the first about %v after the flush began", w.deadlines, timeout)
			}
			if last := w.deadlines[len(w.deadlines)-1]; last.IsZero() != tc.wantLastZero {
				t.Errorf("deadline after the flush: %v, want cleared: %v", last, tc.wantLastZero)
			}
		})
	}
}
