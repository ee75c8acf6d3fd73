package reconcile

import (
	"context"
	"log/slog"
)

type loggerKey struct{}

// WithLogger returns ctx carrying log. A controller gives each reconcile
// its logger, already labelled with the controller and the object.
func WithLogger(ctx context.Context, log *slog.Logger) context.Context {
	return context.WithValue(ctx, loggerKey{}, log)
}

// Logger is the logger ctx carries, or slog.Default(): what reconcilers
// and the helpers they call (finalizer, fsm) log with.
func Logger(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(loggerKey{}).(*slog.Logger); ok && l != nil {
		return l
	}
	return slog.Default()
}
