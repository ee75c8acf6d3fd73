package cache

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/watch"
)

// shortWatch is how soon a watch may close without any event before it
// counts as a failure; retrying such a watch at once would spin.
const shortWatch = time.Second

// watch applies a watch's events until it ends. It opens a watch from rv
// unless w is a WatchList stream that goes on.
func (r *Reflector[T]) watch(ctx context.Context, rv string, w watch.Interface) outcome {
	start := r.opts.Clock.Now()
	if w == nil {
		opts := r.baseOptions()
		opts.ResourceVersion = rv
		opts.AllowWatchBookmarks = true
		opts.TimeoutSeconds = r.watchTimeout()
		var err error
		if w, err = r.lw.Watch(ctx, opts); err != nil {
			return failed(err, rv)
		}
	}
	defer w.Stop()
	events := 0
	for {
		var ev watch.Event
		var ok bool
		select {
		case <-ctx.Done():
			return outcome{}
		case ev, ok = <-w.ResultChan():
		}
		if !ok {
			short := events == 0 && r.opts.Clock.Now().Sub(start) < shortWatch
			return outcome{result: resEnded, rv: rv, short: short}
		}
		events++
		switch ev.Type {
		case watch.Added, watch.Modified, watch.Deleted:
			// Read the version before Transform, which may drop it.
			evRV := resourceVersion(ev.Object)
			obj, err := r.convert(ev.Object)
			if err != nil {
				return failed(err, rv)
			}
			op := OpUpsert
			if ev.Type == watch.Deleted {
				op = OpDelete
			}
			r.sink(Delta[T]{Op: op, Object: obj})
			if evRV != "" {
				rv = evRV
				r.progress.advance(rv)
			}
		case watch.Bookmark:
			if v := resourceVersion(ev.Object); v != "" {
				rv = v
				r.progress.advance(rv)
			}
		case watch.Error:
			return failed(eventError(ev.Object), rv)
		}
	}
}
