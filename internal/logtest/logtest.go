// Package logtest collects what a component logs during a test, so the
// test can check it: most often, that a clean run or stop logged no
// errors.
package logtest

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
)

// Buffer is a concurrency-safe log sink. The zero value is ready.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String is everything written so far.
func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Logger is a text logger writing records of level or above to l.
func (l *Buffer) Logger(level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: level}))
}

// HasErrors reports whether an ERROR record was written.
func (l *Buffer) HasErrors() bool { return strings.Contains(l.String(), "level=ERROR") }
