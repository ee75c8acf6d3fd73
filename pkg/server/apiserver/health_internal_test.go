package apiserver

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/storage/memory"
)

// TestHealthBeforeStart: the checks are real; before Start has listed and
// bootstrapped, readiness and liveness fail on exactly those checks.
func TestHealthBeforeStart(t *testing.T) {
	store := memory.New()
	defer store.Close()
	s, err := New(Config{Storage: store, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, want string
	}{
		{"/readyz", "[+]ping ok\n[+]log ok\n[+]etcd ok\n[-]watch-cache failed: reason withheld\n[-]poststarthook/bootstrap-controller failed: reason withheld\n[+]shutdown ok\nreadyz check failed\n"},
		{"/livez", "[+]ping ok\n[+]log ok\n[+]etcd ok\n[-]poststarthook/bootstrap-controller failed: reason withheld\nlivez check failed\n"},
	} {
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, httptest.NewRequest("GET", tc.path, nil))
		if w.Code != 500 || w.Body.String() != tc.want {
			t.Errorf("GET %s before Start: %d\n%s\nwant 500\n%s", tc.path, w.Code, w.Body, tc.want)
		}
	}
}

// blockingHandler is a log handler whose writes wait for release.
type blockingHandler struct {
	slog.Handler
	release chan struct{}
}

func (h blockingHandler) Handle(ctx context.Context, r slog.Record) error {
	<-h.release
	return h.Handler.Handle(ctx, r)
}

func TestLogProbe(t *testing.T) {
	release := make(chan struct{})
	p := newLogProbe(blockingHandler{slog.NewTextHandler(io.Discard, nil), release})
	p.after = 50 * time.Millisecond
	log := slog.New(p).With("k", "v") // derived loggers report to the same probe
	if err := p.check(); err != nil {
		t.Fatalf("before any write: %v", err)
	}
	done := make(chan struct{})
	go func() {
		log.Info("stuck")
		close(done)
	}()
	time.Sleep(20 * time.Millisecond)
	if err := p.check(); err != nil {
		t.Errorf("write in progress for less than the limit: %v", err)
	}
	time.Sleep(100 * time.Millisecond)
	if err := p.check(); err == nil || !strings.Contains(err.Error(), "logging blocked") {
		t.Errorf("write stuck past the limit: %v, want logging blocked", err)
	}
	close(release)
	<-done
	if err := p.check(); err != nil {
		t.Errorf("after the write returned: %v", err)
	}
}

func (h blockingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return blockingHandler{h.Handler.WithAttrs(attrs), h.release}
}

// TestReadyzAfterStop: once Start has stopped, a caller still serving
// Handler answers /readyz with the shutdown check failing.
func TestReadyzAfterStop(t *testing.T) {
	store := memory.New()
	defer store.Close()
	s, err := New(Config{Storage: store, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- s.Start(ctx) }()
	select {
	case <-s.Ready():
	case <-time.After(10 * time.Second):
		t.Fatal("not ready within 10s")
	}
	get := func() *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, httptest.NewRequest("GET", "/readyz?verbose", nil))
		return w
	}
	if w := get(); w.Code != 200 || !strings.Contains(w.Body.String(), "[+]shutdown ok\n") {
		t.Errorf("while running: %d\n%s", w.Code, w.Body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if w := get(); w.Code != 500 || !strings.Contains(w.Body.String(), "[-]shutdown failed: reason withheld\n") {
		t.Errorf("after Start returned: %d\n%s, want 500 with the shutdown check failing", w.Code, w.Body)
	}
}
