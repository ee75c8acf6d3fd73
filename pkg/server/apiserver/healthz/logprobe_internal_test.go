package healthz

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"
)

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
	p := NewLogProbe(blockingHandler{slog.NewTextHandler(io.Discard, nil), release})
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
