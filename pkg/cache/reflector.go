package cache

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// Reflector keeps a sink up to date with one kind in one scope. It is a
// state machine, in the manner of kube-rs's watcher:
//
//	Empty
//	  -> InitialList(streaming)   when WatchList is on
//	  -> InitialList(paged)       otherwise
//	InitialList(streaming)        watch?sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true
//	  -- ADDED ...                   each object is applied as it arrives
//	  -- initial-events-end BOOKMARK -> Watching(rv), on the same stream
//	  -- any error                   -> InitialList(paged) at once; WatchList stays
//	                                    off from then on unless the error was transient
//	InitialList(paged)            LIST limit=500, then continue=...
//	  -- page with a continue     -> InitialList(paged), next page
//	  -- last page                -> Watching(the list's resourceVersion)
//	  -- 410 on a continue token  -> InitialList(paged) from the first page
//	  -- other error              -> Backoff -> Empty
//	Watching(rv)                  watch?resourceVersion=rv&allowWatchBookmarks=true&timeoutSeconds=300..600
//	  -- event or BOOKMARK        -> Watching(its resourceVersion)
//	  -- stream ends              -> Watching(rv): resume where it stopped
//	  -- 410, or rv too large     -> Empty: relist at once
//	  -- other error, or a stream
//	     closed at once, no event -> Backoff -> Watching(rv)
//	Backoff                       800 ms doubling to 30 s, jittered; reset after
//	                              2 minutes without a failure
//
// The transitions live in machine.next, which does no I/O. Listing is
// reported as OpListStart, OpListItem... and OpListEnd, so the sink
// applies a relist into the objects it holds instead of building a
// second copy.
type Reflector[T Object] struct {
	lw      ListerWatcher
	sink    func(Delta[T])
	opts    ReflectorOptions[T]
	log     *slog.Logger
	backoff backoffTimer
	ran     atomic.Bool

	mu      sync.Mutex
	lastErr error

	progress progress
}

// ReflectorOptions configure a Reflector. The zero value is the default.
type ReflectorOptions[T Object] struct {
	// Name identifies the reflector in logs and metrics.
	Name string
	// LabelSelector and FieldSelector narrow what is listed and watched.
	LabelSelector, FieldSelector string
	// PageSize is the limit of each LIST page; 0 means 500.
	PageSize int64
	// DisableWatchList lists with paged LISTs instead of streaming the
	// initial state through a watch.
	DisableWatchList bool
	// KeepManagedFields keeps metadata.managedFields, which is dropped by
	// default: it is a fifth to two fifths of a cached object and
	// controllers rarely read it.
	KeepManagedFields bool
	// Transform rewrites each object before it is cached (after
	// managedFields are dropped). It owns the object and may modify it.
	// An error fails the list or watch, which is retried.
	Transform func(T) (T, error)
	// Backoff spaces retries; the zero value means DefaultBackoff.
	Backoff Backoff
	// MinWatchTimeout and MaxWatchTimeout bound each watch's random
	// timeoutSeconds; zero means 5 and 10 minutes.
	MinWatchTimeout, MaxWatchTimeout time.Duration
	// Clock is the time source; nil means RealClock.
	Clock Clock
	// Rand returns numbers in [0, 1) for jitter; nil means math/rand/v2.
	Rand func() float64
	// Logger receives the reflector's logs; nil means slog.Default().
	Logger *slog.Logger
}

func (o ReflectorOptions[T]) withDefaults() ReflectorOptions[T] {
	if o.PageSize == 0 {
		o.PageSize = 500
	}
	if o.Backoff == (Backoff{}) {
		o.Backoff = DefaultBackoff
	}
	if o.MinWatchTimeout == 0 {
		o.MinWatchTimeout = 5 * time.Minute
	}
	if o.MaxWatchTimeout == 0 {
		o.MaxWatchTimeout = 2 * o.MinWatchTimeout
	}
	if o.Clock == nil {
		o.Clock = RealClock{}
	}
	if o.Rand == nil {
		o.Rand = rand.Float64
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// NewReflector returns a reflector that reports what lw lists and
// watches to sink, from the goroutine that runs it.
func NewReflector[T Object](lw ListerWatcher, sink func(Delta[T]), opts ReflectorOptions[T]) *Reflector[T] {
	opts = opts.withDefaults()
	log := opts.Logger
	if opts.Name != "" {
		log = log.With("reflector", opts.Name)
	}
	return &Reflector[T]{
		lw: lw, sink: sink, opts: opts, log: log,
		backoff: backoffTimer{cfg: opts.Backoff, clock: opts.Clock, rand: opts.Rand},
	}
}

// Run lists and watches until ctx ends, then returns nil. It runs once.
func (r *Reflector[T]) Run(ctx context.Context) error {
	if r.ran.Swap(true) {
		return errors.New("cache: reflector already ran")
	}
	m := machine{stream: !r.opts.DisableWatchList}
	var stream watch.Interface // a WatchList stream goes on as the watch
	defer func() {
		if stream != nil {
			stream.Stop()
		}
	}()
	for {
		var o outcome
		switch m.phase {
		case phaseStreaming:
			o, stream = r.streamInitial(ctx)
		case phasePaging:
			o = r.listPage(ctx, m.cont)
		case phaseWatching:
			o = r.watch(ctx, m.rv, stream)
			stream = nil
		case phaseBackoff:
			r.sleep(ctx, r.backoff.next())
		}
		if ctx.Err() != nil {
			// Errors caused by the shutdown itself are not errors.
			return nil
		}
		r.observe(m, o)
		if o.result == resSynced || o.result == resPage && o.cont == "" {
			r.progress.advance(o.rv)
		}
		m = m.next(o)
	}
}

// ResourceVersion is the newest resourceVersion the sink has applied:
// of the last watch event or bookmark, or of the last completed listing;
// "" before the first listing completes.
func (r *Reflector[T]) ResourceVersion() string { return r.progress.current() }

// WaitForResourceVersion waits until the sink has applied everything up
// to rv, or ctx ends. A resourceVersion that is not a number returns at
// once: it cannot be compared.
func (r *Reflector[T]) WaitForResourceVersion(ctx context.Context, rv string) error {
	return r.progress.wait(ctx, rv)
}

// LastError is the error of the latest failed step, until a list or
// watch succeeds. Health checks use it to say why a cache is not synced.
func (r *Reflector[T]) LastError() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastErr
}

// observe logs a step's outcome and keeps its error.
func (r *Reflector[T]) observe(m machine, o outcome) {
	r.mu.Lock()
	switch {
	case o.result == resFailed:
		r.lastErr = o.err
	case o.result == resSynced, o.result == resPage && o.cont == "", o.result == resEnded && !o.short:
		r.lastErr = nil
	}
	r.mu.Unlock()
	if o.result != resFailed && !o.short {
		return
	}
	switch m.phase {
	case phaseStreaming:
		r.log.Info("watch list failed, falling back to list", "err", o.err, "retryStreaming", transient(o.err))
	case phasePaging:
		r.log.Warn("list failed", "err", o.err)
	case phaseWatching:
		switch {
		case o.short:
			r.log.Warn("watch closed at once without events", "resourceVersion", m.rv)
		case needsRelist(o.err):
			r.log.Info("watch cannot resume, relisting", "err", o.err)
		default:
			r.log.Warn("watch failed", "err", o.err)
		}
	}
}

func (r *Reflector[T]) sleep(ctx context.Context, d time.Duration) {
	r.log.Debug("backing off", "delay", d)
	t := r.opts.Clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C():
	}
}

// baseOptions are the options every list and watch share.
func (r *Reflector[T]) baseOptions() metav1.ListOptions {
	return metav1.ListOptions{LabelSelector: r.opts.LabelSelector, FieldSelector: r.opts.FieldSelector}
}

// watchTimeout spreads re-watches of many reflectors over 5 to 10 minutes.
func (r *Reflector[T]) watchTimeout() *int64 {
	span := r.opts.MaxWatchTimeout - r.opts.MinWatchTimeout
	d := r.opts.MinWatchTimeout + time.Duration(r.opts.Rand()*float64(span))
	s := int64(d / time.Second)
	return &s
}

// convert turns a listed or watched object into a cached one.
func (r *Reflector[T]) convert(o runtime.Object) (T, error) {
	obj, ok := o.(T)
	if !ok {
		var zero T
		return zero, &typeError{got: o, want: zero}
	}
	if !r.opts.KeepManagedFields {
		obj.SetManagedFields(nil)
	}
	if r.opts.Transform != nil {
		return r.opts.Transform(obj)
	}
	return obj, nil
}

// resourceVersion reads an event object's resourceVersion.
func resourceVersion(o runtime.Object) string {
	if acc, err := meta.Accessor(o); err == nil {
		return acc.GetResourceVersion()
	}
	return ""
}
