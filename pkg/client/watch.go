package client

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

// Watch streams changes to the objects opts select, as objects of list's
// item type (typed, unstructured or metadata-only). BOOKMARK events carry
// an object with only its resourceVersion (and annotations); ERROR
// events carry a *metav1.Status (see EventError). The result channel
// closes when the server ends the stream, the connection fails, ctx ends
// or Stop is called; only undecodable bytes produce an ERROR event of
// the client's own.
func (c *Client) Watch(ctx context.Context, list ObjectList, opts ...ListOption) (watch.Interface, error) {
	return c.watchList(ctx, list, listOptionsOf(opts))
}

func (c *Client) watchList(ctx context.Context, list ObjectList, o ListOptions) (watch.Interface, error) {
	t, err := c.targetOf(ctx, list, true)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	resp, err := c.send(ctx, request{
		method: http.MethodGet, path: t.path(o.Namespace, "", ""),
		query: listQuery(o.ListOptions, true), accept: t.accept(false), stream: true,
	})
	if err != nil {
		cancel()
		return nil, err
	}
	var events eventReader = newJSONEvents(resp.Body)
	if mediaType(resp.Header.Get("Content-Type")) == mediaProtobuf {
		// Frames are small and many: read them from a buffer, not one
		// HTTP/2 body read (a lock and a flow-control step) per header.
		// 4 KiB holds a dozen small frames; larger ones read through it,
		// and a process with many watches (the server's controllers
		// hold about fifty) keeps less memory idle than with 32 KiB.
		events = newProtoEvents(bufio.NewReaderSize(resp.Body, 4<<10))
	}
	w := &streamWatcher{result: make(chan watch.Event, eventBuffer), done: make(chan struct{}), cancel: cancel}
	go w.run(ctx, resp.Body, events, func(ev rawEvent) (watch.Event, error) { return c.decodeEvent(t, ev) }, c.log)
	return w, nil
}

// decodeEvent turns a raw event into a watch.Event with an object of
// the target's item type.
func (c *Client) decodeEvent(t target, ev rawEvent) (watch.Event, error) {
	ct := mediaJSON
	if ev.proto {
		ct = mediaProtobuf
	}
	switch ev.typ {
	case watch.Added, watch.Modified, watch.Deleted, watch.Bookmark:
	case watch.Error:
		st, ok := decodeStatus(ev.object, ct)
		if !ok {
			st = synthesizedStatus(http.StatusInternalServerError, []byte("a watch ERROR event without a Status"))
		}
		return watch.Event{Type: watch.Error, Object: &st}, nil
	default:
		return watch.Event{}, fmt.Errorf("%w: unknown watch event type %q", ErrDecode, ev.typ)
	}
	obj, err := c.newItem(t.flavor, t.gvk)
	if err != nil {
		return watch.Event{}, fmt.Errorf("client: %w", err)
	}
	if err := decodeInto(ev.object, ct, obj); err != nil {
		return watch.Event{}, err
	}
	finish(obj, t.flavor, t.gvk, schema.GroupVersionKind{})
	return watch.Event{Type: ev.typ, Object: obj}, nil
}

// EventError returns the error an ERROR watch event carries, as a
// *StatusError the Is* helpers understand (IsGone for a too-old
// resourceVersion), or nil for any other event.
func EventError(ev watch.Event) error {
	if ev.Type != watch.Error {
		return nil
	}
	if st, ok := ev.Object.(*metav1.Status); ok && st != nil {
		return &StatusError{ErrStatus: *st}
	}
	return &StatusError{ErrStatus: synthesizedStatus(http.StatusInternalServerError, fmt.Appendf(nil, "a watch ERROR event carrying %T", ev.Object))}
}

// eventBuffer is how many decoded events may wait for the consumer: a
// burst (an initial state of thousands) is decoded while the consumer
// applies earlier events, instead of one goroutine hand-off per event.
const eventBuffer = 128

// streamWatcher delivers one watch stream's events.
type streamWatcher struct {
	result   chan watch.Event
	done     chan struct{}
	cancel   context.CancelFunc
	stopOnce sync.Once
}

func (w *streamWatcher) ResultChan() <-chan watch.Event { return w.result }

// Stop ends the stream; the result channel closes soon after. It is safe
// to call more than once.
func (w *streamWatcher) Stop() {
	w.stopOnce.Do(func() {
		close(w.done)
		w.cancel()
	})
}

// run reads events until the stream ends. An end the caller caused
// (Stop, ctx) or the server chose (EOF) closes the channel quietly;
// a broken connection is logged at debug level, since the caller just
// watches again from its last resourceVersion.
func (w *streamWatcher) run(ctx context.Context, body io.ReadCloser, events eventReader, decode func(rawEvent) (watch.Event, error), log *slog.Logger) {
	defer close(w.result)
	defer w.cancel()
	defer body.Close()
	for {
		raw, err := events.next()
		var ev watch.Event
		if err == nil {
			ev, err = decode(raw)
		}
		if err != nil {
			switch {
			case ctx.Err() != nil, errors.Is(err, io.EOF):
			case errors.Is(err, ErrDecode):
				// As client-go reports it, so a reflector treats it the same.
				st := synthesizedStatus(http.StatusInternalServerError, nil)
				st.Message = "unable to decode an event from the watch stream: " + err.Error()
				select {
				case w.result <- watch.Event{Type: watch.Error, Object: &st}:
				case <-w.done:
				}
			default:
				log.Debug("watch stream ended", "err", err)
			}
			return
		}
		// Stop wins over an event read before it: a select between a
		// ready send and a closed done would pick at random.
		select {
		case <-w.done:
			return
		default:
		}
		select {
		case w.result <- ev:
		case <-w.done:
			return
		}
	}
}
