package logtest

import (
	"log/slog"
	"sync"
	"testing"
)

func TestBuffer(t *testing.T) {
	var b Buffer
	log := b.Logger(slog.LevelInfo)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { log.Info("fine", "k", 1) })
	}
	wg.Wait()
	log.Debug("not kept")
	if b.HasErrors() {
		t.Fatalf("HasErrors with only INFO records:\n%s", b.String())
	}
	log.Error("broken")
	if !b.HasErrors() {
		t.Error("HasErrors after an ERROR record = false")
	}
}
