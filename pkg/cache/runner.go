package cache

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// runner delivers one handler's notifications from its buffer.
type runner[T Object] struct {
	name    string
	h       Handler[T]
	inf     *Informer[T]
	resync  time.Duration
	log     *slog.Logger
	checker *mutationChecker

	mu             sync.Mutex
	q              coalescer[T]
	informerSynced bool
	synced         chan struct{}
	isSynced       bool
	wake           chan struct{} // a buffer of one: "something was pushed"
	stop           chan struct{} // closed by remove
	stopped        bool
}

func (r *runner[T]) handlerName() string { return r.name }

func (r *runner[T]) pendingCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.q.count
}

func (r *runner[T]) syncedChan() <-chan struct{} { return r.synced }

func (r *runner[T]) remove() { r.inf.removeHandler(r) }

// push queues n; the informer calls it with its lock held, in the order
// of the changes.
func (r *runner[T]) push(key string, n notification[T]) {
	r.mu.Lock()
	if r.stopped {
		r.mu.Unlock()
		return
	}
	r.q.push(key, n)
	r.checkSynced()
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// setInformerSynced records that the informer's initial list is complete.
func (r *runner[T]) setInformerSynced() {
	r.mu.Lock()
	r.informerSynced = true
	r.checkSynced()
	r.mu.Unlock()
}

func (r *runner[T]) checkSynced() {
	if !r.isSynced && r.informerSynced && r.q.initial == 0 {
		r.isSynced = true
		close(r.synced)
	}
}

func (r *runner[T]) halt() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.stopped {
		r.stopped = true
		r.q.clear()
		close(r.stop)
	}
}

// run delivers until ctx ends or the handler is removed, resyncing
// every r.resync if set.
func (r *runner[T]) run(ctx context.Context) {
	var t Timer
	var resync <-chan time.Time
	arm := func() {
		if r.resync > 0 {
			t = r.inf.clock.NewTimer(r.resync)
			resync = t.C()
		}
	}
	arm()
	defer func() {
		if t != nil {
			t.Stop()
		}
	}()
	for r.drain(ctx) {
		select {
		case <-ctx.Done():
			return
		case <-r.stop:
			return
		case <-r.wake:
		case <-resync:
			r.inf.resync(r)
			arm()
		}
	}
}

// drain delivers everything pending; false means stop.
func (r *runner[T]) drain(ctx context.Context) bool {
	for {
		if ctx.Err() != nil {
			return false
		}
		r.mu.Lock()
		if r.stopped {
			r.mu.Unlock()
			return false
		}
		p, ok := r.q.pop()
		r.mu.Unlock()
		if !ok {
			return true
		}
		if p.del.kind != kindNone {
			r.deliver(p.key, p.del)
		}
		if p.op.kind != kindNone {
			r.deliver(p.key, p.op)
		}
	}
}

// deliver makes one call. A panicking handler is logged and goes on
// with the next notification; in checked mode, a handler that modified
// what it was given is reported.
func (r *runner[T]) deliver(key string, n notification[T]) {
	r.call(n)
	if r.checker != nil {
		where := "by handler " + r.name
		switch n.kind {
		case kindAdd:
			r.checker.check(key, n.new.obj, n.new.sum, where)
		case kindUpdate:
			r.checker.check(key, n.old.obj, n.old.sum, where)
			if !n.resync {
				r.checker.check(key, n.new.obj, n.new.sum, where)
			}
		case kindDelete:
			r.checker.check(key, n.old.obj, n.old.sum, where)
		}
	}
	if n.kind == kindAdd && n.initial {
		r.mu.Lock()
		r.q.initial--
		r.checkSynced()
		r.mu.Unlock()
	}
}

func (r *runner[T]) call(n notification[T]) {
	defer func() {
		if v := recover(); v != nil {
			r.log.Error("handler panicked", "handler", r.name, "panic", v)
		}
	}()
	switch n.kind {
	case kindAdd:
		r.h.OnAdd(n.new.obj, n.initial)
	case kindUpdate:
		r.h.OnUpdate(n.old.obj, n.new.obj)
	case kindDelete:
		r.h.OnDelete(n.old.obj)
	}
}
