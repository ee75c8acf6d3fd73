package healthz

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// logBlockedAfter is how long one log write may take before the log
// check fails; kube-apiserver's allows its log flush two minutes too.
const logBlockedAfter = 2 * time.Minute

// LogProbe watches the server's log handler: a write that does not return
// (a full pipe, a stuck disk) fails the "log" check, since a server that
// cannot log hangs wherever it tries to.
type LogProbe struct {
	next slog.Handler
	// writes holds the start times of the writes in progress.
	writes *sync.Map
	seq    *atomic.Uint64
	after  time.Duration
}

// NewLogProbe wraps the log handler h.
func NewLogProbe(h slog.Handler) *LogProbe {
	return &LogProbe{next: h, writes: &sync.Map{}, seq: &atomic.Uint64{}, after: logBlockedAfter}
}

func (p *LogProbe) Enabled(ctx context.Context, l slog.Level) bool { return p.next.Enabled(ctx, l) }

func (p *LogProbe) Handle(ctx context.Context, rec slog.Record) error {
	id := p.seq.Add(1)
	p.writes.Store(id, time.Now())
	defer p.writes.Delete(id)
	return p.next.Handle(ctx, rec)
}

func (p *LogProbe) WithAttrs(attrs []slog.Attr) slog.Handler {
	q := *p
	q.next = p.next.WithAttrs(attrs)
	return &q
}

func (p *LogProbe) WithGroup(name string) slog.Handler {
	q := *p
	q.next = p.next.WithGroup(name)
	return &q
}

func (p *LogProbe) check() error {
	var err error
	p.writes.Range(func(_, v any) bool {
		if since := time.Since(v.(time.Time)); since > p.after {
			err = fmt.Errorf("logging blocked for %v", since.Round(time.Second))
			return false
		}
		return true
	})
	return err
}
