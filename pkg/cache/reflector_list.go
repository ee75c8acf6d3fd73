package cache

import (
	"context"
	"errors"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// initialEventsEnd annotates the bookmark that ends a WatchList's initial
// state (KEP-3157).
const initialEventsEnd = "k8s.io/initial-events-end"

// errStreamEnded is a WatchList stream that closed before its initial
// state was complete: most likely the connection dropped.
var errStreamEnded = errors.New("cache: watch list ended before the initial-events-end bookmark")

// streamInitial opens a WatchList and applies the initial state as it
// streams in. On success the stream is returned still open: it goes on
// as the watch.
func (r *Reflector[T]) streamInitial(ctx context.Context) (outcome, watch.Interface) {
	opts := r.baseOptions()
	yes := true
	opts.SendInitialEvents = &yes
	opts.ResourceVersionMatch = metav1.ResourceVersionMatchNotOlderThan
	opts.AllowWatchBookmarks = true
	opts.TimeoutSeconds = r.watchTimeout()
	w, err := r.lw.Watch(ctx, opts)
	if err != nil {
		return failed(err, ""), nil
	}
	r.sink(Delta[T]{Op: OpListStart})
	for {
		var ev watch.Event
		var ok bool
		select {
		case <-ctx.Done():
			w.Stop()
			return outcome{}, nil
		case ev, ok = <-w.ResultChan():
		}
		if !ok {
			w.Stop()
			return failed(errStreamEnded, ""), nil
		}
		switch ev.Type {
		case watch.Added:
			obj, err := r.convert(ev.Object)
			if err != nil {
				w.Stop()
				return failed(err, ""), nil
			}
			r.sink(Delta[T]{Op: OpListItem, Object: obj})
		case watch.Bookmark:
			acc, err := meta.Accessor(ev.Object)
			if err != nil {
				w.Stop()
				return failed(err, ""), nil
			}
			if acc.GetAnnotations()[initialEventsEnd] == "true" {
				r.sink(Delta[T]{Op: OpListEnd})
				return outcome{result: resSynced, rv: acc.GetResourceVersion()}, w
			}
		case watch.Error:
			w.Stop()
			return failed(eventError(ev.Object), ""), nil
		default:
			w.Stop()
			return failed(&streamError{msg: "unexpected " + string(ev.Type) + " event before the initial-events-end bookmark"}, ""), nil
		}
	}
}

// listPage lists one page and applies its items. A listing's first page
// (cont "") starts it; its last page ends it.
func (r *Reflector[T]) listPage(ctx context.Context, cont string) outcome {
	opts := r.baseOptions()
	opts.Limit = r.opts.PageSize
	opts.Continue = cont
	list, err := r.lw.List(ctx, opts)
	if err != nil {
		return failed(err, "")
	}
	lm, err := meta.ListAccessor(list)
	if err != nil {
		return failed(err, "")
	}
	if cont == "" {
		r.sink(Delta[T]{Op: OpListStart})
	}
	// WithAlloc gives each item its own allocation: a cached item that
	// pointed into the page's Items array would keep the whole page alive.
	err = meta.EachListItemWithAlloc(list, func(o runtime.Object) error {
		obj, err := r.convert(o)
		if err != nil {
			return err
		}
		r.sink(Delta[T]{Op: OpListItem, Object: obj})
		return nil
	})
	if err != nil {
		return failed(err, "")
	}
	next := lm.GetContinue()
	if next == "" {
		r.sink(Delta[T]{Op: OpListEnd})
	}
	return outcome{result: resPage, rv: lm.GetResourceVersion(), cont: next}
}

func failed(err error, rv string) outcome {
	return outcome{result: resFailed, err: err, rv: rv}
}
