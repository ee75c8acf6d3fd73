package apiserver

import (
	"context"
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
