package events

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/setpoint-dev/setpoint/pkg/client"
)

// Start writes queued Events until ctx ends, then writes what is still
// queued for up to FlushTimeout and returns nil. It runs once per
// Broadcaster (ErrStarted after that); the caller runs it on a goroutine
// of its own and owns its end.
func (b *Broadcaster) Start(ctx context.Context) error {
	if !b.started.CompareAndSwap(false, true) {
		return ErrStarted
	}
	// Writes are not cut by ctx: one under way when ctx ends is finished
	// (within writeTimeout), not abandoned halfway.
	wctx := context.WithoutCancel(ctx)
	for {
		select {
		case <-ctx.Done():
			b.flush(wctx, nil)
			return nil
		case p := <-b.queue:
			// Once ctx has ended, what is left is the flush's, with
			// its deadline, even if the queue won the select.
			if ctx.Err() != nil || !b.deliver(ctx, wctx, p) {
				b.flush(wctx, p)
				return nil
			}
		}
	}
}

// deliver writes p, retrying while errors may pass. It returns false
// when ctx ended during a wait, with p still unwritten.
func (b *Broadcaster) deliver(ctx, wctx context.Context, p *pending) bool {
	for attempt := 1; ; attempt++ {
		err := b.write(wctx, p)
		if err == nil {
			return true
		}
		if !retriable(err) {
			b.rejected(wctx, p.event, err)
			return true
		}
		if attempt >= b.opts.MaxAttempts {
			b.drop(wctx, DropFailed, p.event, slog.LevelError, "event not written: retries exhausted",
				"attempts", attempt, "err", err)
			return true
		}
		wait := b.backoff(attempt)
		b.log.DebugContext(wctx, "event write failed; retrying", append(eventAttrs(p.event), "attempt", attempt, "wait", wait, "err", err)...)
		if !b.sleep(ctx, wait) {
			return false
		}
	}
}

// flush writes first (if any) and what is queued, one attempt each, until
// the queue is empty or FlushTimeout has passed. Events recorded from
// now on are dropped.
func (b *Broadcaster) flush(wctx context.Context, first *pending) {
	b.stopped.Store(true)
	ctx, cancel := context.WithTimeout(wctx, b.opts.FlushTimeout)
	defer cancel()
	late := 0
	defer func() {
		if late > 0 {
			b.log.WarnContext(wctx, "events dropped: shutdown flush timed out", "count", late)
		}
	}()
	p := first
	for {
		if p == nil {
			select {
			case p = <-b.queue:
			default:
				return
			}
		}
		if ctx.Err() != nil {
			late++
			b.drops.add(DropShutdown)
		} else if err := b.write(ctx, p); err != nil {
			if retriable(err) {
				b.drop(wctx, DropFailed, p.event, slog.LevelWarn, "event not written before shutdown", "err", err)
			} else {
				b.rejected(wctx, p.event, err)
			}
		}
		p = nil
	}
}

// rejected drops an Event the server (or the client) refused for good.
func (b *Broadcaster) rejected(ctx context.Context, ev *corev1.Event, err error) {
	level := slog.LevelWarn
	if client.HasStatusCause(err, corev1.NamespaceTerminatingCause) || client.IsAlreadyExists(err) {
		// Expected in normal operation: the object's namespace is
		// going away, or another writer took the name.
		level = slog.LevelDebug
	}
	b.drop(ctx, DropRejected, ev, level, "event rejected", "err", err)
}

// retriable reports whether err may pass if the write is tried again:
// the server is failing or busy, or the request never got an answer.
func retriable(err error) bool {
	if se, ok := errors.AsType[*client.StatusError](err); ok {
		code := se.ErrStatus.Code
		return code >= http.StatusInternalServerError || code == http.StatusTooManyRequests || client.IsConflict(err)
	}
	if _, ok := errors.AsType[net.Error](err); ok {
		return true
	}
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}

// backoff is the wait after the given failed attempt: RetryBackoff
// doubled per attempt, capped, and jittered down by up to half so
// recorders that failed together do not retry together.
func (b *Broadcaster) backoff(attempt int) time.Duration {
	d := b.opts.RetryBackoff
	for i := 1; i < attempt && d < maxRetryBackoff; i++ {
		d *= 2
	}
	d = min(d, maxRetryBackoff)
	return d/2 + rand.N(d/2+1)
}

// sleep waits d on the clock; it reports false if ctx ended first.
func (b *Broadcaster) sleep(ctx context.Context, d time.Duration) bool {
	t := b.opts.Clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C():
		return true
	case <-ctx.Done():
		return false
	}
}
