package filters

import (
	"context"
	"log"
	"log/slog"
	"strings"
)

// ServerErrorLog is the http.Server's own log (failed TLS handshakes,
// handler panics, protocol errors) as slog records at levels a default
// Info handler shows. Handshake failures are routine on a public port
// (scanners, clients that distrust the CA) and stay at Info; a panic is
// a server bug.
func ServerErrorLog(l *slog.Logger) *log.Logger {
	return log.New(serverErrorWriter{l}, "", 0)
}

type serverErrorWriter struct{ log *slog.Logger }

func (w serverErrorWriter) Write(p []byte) (int, error) {
	line := strings.TrimSpace(string(p))
	switch {
	case strings.Contains(line, "TLS handshake error"):
		w.log.Info("TLS handshake failed", "err", line)
	case strings.Contains(line, "panic serving"):
		w.log.Error("request handler panicked", "err", line)
	default:
		w.log.Log(context.Background(), slog.LevelWarn, "HTTP server error", "err", line)
	}
	return len(p), nil
}
