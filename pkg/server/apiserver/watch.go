package apiserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/registry/generic"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/params"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/protobuf"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/response"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// defaultWatchWriteTimeout bounds how long one write to a watch client
// may block; a client that stops reading is disconnected instead of
// pinning the stream forever.
const defaultWatchWriteTimeout = time.Minute

// watchParams are a watch request's parsed parameters.
type watchParams struct {
	sel        params.Selection
	initial    bool  // send the current state first
	after      int64 // otherwise, events after this revision
	consistent bool  // the initial state must be the latest
	notOlder   int64 // the initial state must be at least this new
	bookmarks  bool
	endMarker  bool // WatchList: bookmark the end of the initial state
	timeout    time.Duration
}

func parseWatch(req *request) (watchParams, error) {
	q := req.query
	var p watchParams
	var err error
	if p.sel, err = params.ParseSelection(q, req.res); err != nil {
		return p, err
	}
	p.bookmarks = q.Get("allowWatchBookmarks") == "true"
	// kube-apiserver's default: a random timeout between 30 and 60
	// minutes spreads the re-watches of many clients.
	p.timeout = 30*time.Minute + rand.N(30*time.Minute)
	if ts := q.Get("timeoutSeconds"); ts != "" {
		n, err := strconv.ParseInt(ts, 10, 64)
		if err != nil || n < 0 {
			return p, apierror.BadRequest("invalid timeoutSeconds %q", ts)
		}
		if n > 0 {
			p.timeout = time.Duration(n) * time.Second
		}
	}
	rv, match := q.Get("resourceVersion"), q.Get("resourceVersionMatch")
	var n int64
	if rv != "" {
		if n, err = params.ParseRV(rv); err != nil {
			return p, err
		}
	}
	switch sie := q.Get("sendInitialEvents"); sie {
	case "true", "false":
		if match != "NotOlderThan" {
			return p, apierror.BadRequest("sendInitialEvents requires setting resourceVersionMatch to NotOlderThan")
		}
		if sie == "true" {
			if !p.bookmarks {
				return p, apierror.BadRequest("sendInitialEvents requires setting allowWatchBookmarks to true")
			}
			p.initial, p.endMarker = true, true
			p.consistent = rv == ""
			p.notOlder = n
			return p, nil
		}
		if rv == "" {
			return p, apierror.BadRequest("sendInitialEvents=false requires a resourceVersion")
		}
		p.after = n
		return p, nil
	case "":
	default:
		return p, apierror.BadRequest("invalid sendInitialEvents %q", sie)
	}
	if match != "" {
		return p, apierror.BadRequest("resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided")
	}
	switch {
	case rv == "":
		p.initial, p.consistent = true, true
	case n == 0:
		p.initial = true
	default:
		p.after = n
	}
	return p, nil
}

func (s *Server) watch(w http.ResponseWriter, r *http.Request, req *request) error {
	p, err := parseWatch(req)
	if err != nil {
		return err
	}
	f, err := response.NegotiateWatch(r.Header.Get("Accept"), req.res, p.endMarker)
	if err != nil {
		return err
	}
	ctx := r.Context()
	watcher, err := s.objects.Watch(ctx, req.res, req.namespace, generic.WatchOptions{
		ReadPoint: generic.ReadPoint{Consistent: p.consistent, NotOlder: p.notOlder}, Initial: p.initial, After: p.after,
	})
	ws := &watchStream{s: s, res: req.res, w: w, rc: http.NewResponseController(w), f: f, sel: p.sel,
		includeObject: req.query.Get("includeObject")}
	var started *generic.WatchError
	if errors.As(err, &started) {
		ws.start()
		if errors.Is(err, watchcache.ErrExpired) {
			// A too-old revision is not an HTTP error: the stream carries
			// one ERROR event, which client-go turns into a relist.
			ws.sendStatus(apierror.Expired("too old resource version: " + strconv.FormatInt(started.Requested, 10) + " (" + strconv.FormatInt(started.Oldest, 10) + ")"))
		} else {
			ws.sendStatus(apierror.From(started.Err, req.res.GroupResource(), ""))
		}
		ws.flush()
		return nil
	}
	if err != nil {
		return err
	}
	ws.start()
	defer watcher.Stop()
	for _, o := range watcher.Initial {
		if o = ws.served(o); o != nil && (p.sel.Empty() || p.sel.Matches(o)) {
			ws.send("ADDED", o, nil, 0)
		}
	}
	ws.lastRev = watcher.InitialRevision
	if p.endMarker {
		ws.sendBookmark(watcher.InitialRevision, true)
	}
	for _, ev := range watcher.Replay {
		ws.sendEvent(ev)
	}
	ws.flush()
	if ws.err != nil {
		return nil
	}
	timeout := time.NewTimer(p.timeout)
	defer timeout.Stop()
	var bookmarks <-chan time.Time
	if p.bookmarks {
		t := time.NewTicker(s.cfg.BookmarkInterval)
		defer t.Stop()
		bookmarks = t.C
	}
	for {
		select {
		case ev, ok := <-watcher.C():
			if !ok {
				return nil
			}
			ws.sendEvent(ev)
			// Flush once nothing else is waiting, so a burst goes out in
			// one write and a lone event goes out at once.
			if len(watcher.C()) == 0 {
				ws.flush()
			}
		case <-bookmarks:
			rev := s.cache.Revision()
			for drained := false; !drained; {
				select {
				case ev, ok := <-watcher.C():
					if !ok {
						ws.flush()
						return nil
					}
					ws.sendEvent(ev)
				default:
					drained = true
				}
			}
			ws.sendBookmark(max(rev, ws.lastRev), false)
			ws.flush()
		case <-timeout.C:
			ws.flush()
			return nil
		case <-ctx.Done():
			return nil
		}
		if ws.err != nil {
			return nil
		}
	}
}

// watchStream writes one watch response.
type watchStream struct {
	s             *Server
	res           *registry.Resource
	w             http.ResponseWriter
	rc            *http.ResponseController
	f             response.Format
	sel           params.Selection
	includeObject string
	lastRev       int64
	tableSent     bool
	buf           bytes.Buffer
	err           error
}

func (ws *watchStream) start() {
	h := ws.w.Header()
	h.Set("Content-Type", response.StreamContentType(ws.f))
	h.Set("Cache-Control", "no-cache, private")
	ws.w.WriteHeader(http.StatusOK)
	ws.flush()
}

// sendEvent turns a cache event into what this watcher sees: with a
// selector, an object entering it is ADDED and one leaving it is DELETED
// (its previous content at the event's revision).
func (ws *watchStream) sendEvent(ev *watchcache.Event) {
	ws.lastRev = ev.Revision
	if ev = ws.servedEvent(ev); ev == nil {
		return
	}
	if ws.sel.Empty() {
		ws.send(eventType(ev.Type), ev.Object, ev, memoSlot(ev.Type, false))
		return
	}
	switch ev.Type {
	case storage.Added:
		if ws.sel.Matches(ev.Object) {
			ws.send("ADDED", ev.Object, ev, memoSlot(storage.Added, false))
		}
	case storage.Deleted:
		if ws.sel.Matches(ev.Object) {
			ws.send("DELETED", ev.Object, ev, memoSlot(storage.Deleted, false))
		}
	case storage.Modified:
		cur := ws.sel.Matches(ev.Object)
		old := ev.Prev != nil && ws.sel.Matches(ev.Prev)
		switch {
		case cur && old:
			ws.send("MODIFIED", ev.Object, ev, memoSlot(storage.Modified, false))
		case cur:
			ws.send("ADDED", ev.Object, ev, memoSlot(storage.Added, false))
		case old:
			left, err := ev.Memo(memoLeft, func() ([]byte, error) {
				return generic.AtRevision(ev.Prev.JSON, ev.Revision)
			})
			if err != nil {
				ws.err = err
				return
			}
			o := &watchcache.Object{Key: ev.Prev.Key, Namespace: ev.Prev.Namespace, Name: ev.Prev.Name,
				Revision: ev.Revision, APIVersion: ev.Prev.APIVersion, Labels: ev.Prev.Labels, Fields: ev.Prev.Fields, JSON: left}
			ws.send("DELETED", o, ev, memoSlot(storage.Deleted, true))
		}
	}
}

func eventType(t storage.EventType) string { return t.String() }

// Memo slots of an event: JSON frames for ADDED, MODIFIED, DELETED and
// DELETED-on-leaving-a-selector, then the same four in protobuf, with the
// leaving object's own bytes kept in the last.
const (
	memoLeft = 7
)

func memoSlot(t storage.EventType, left bool) int {
	i := int(t) - 1 // Added 0, Modified 1, Deleted 2
	if left {
		i = 3
	}
	return i
}

// send writes one event. Frames of cache events in JSON and protobuf are
// built once per event and shared by every watcher (ev non-nil).
func (ws *watchStream) send(typ string, o *watchcache.Object, ev *watchcache.Event, slot int) {
	if ws.err != nil {
		return
	}
	obj := o.JSON
	// served: the cached object is already in the version served, so its
	// kept protobuf message fits; shared: the event's frames are too.
	served := o.APIVersion == ws.res.APIVersion()
	shared := ev != nil && served
	if !served {
		var err error
		if obj, err = generic.ServedVersion(ws.res, obj); err != nil {
			ws.err = err
			return
		}
	}
	var frame []byte
	var err error
	switch ws.f {
	case response.FormatJSON:
		if !shared {
			// The initial state, above all: the frame is written in
			// pieces around the cached bytes instead of being built for
			// each watcher.
			ws.emit([]byte(`{"type":"`+typ+`","object":`), obj, []byte("}\n"))
			return
		}
		frame, err = ev.Memo(slot, func() ([]byte, error) { return response.JSONFrame(typ, obj), nil })
	case response.FormatProtobuf:
		if served && !(shared && slot < 3) {
			// As for JSON: the object's kept message is written between
			// the frame's head and tail, not copied into a frame.
			gvk := ws.res.GroupVersionKind()
			item, err := response.ProtoItem(gvk, o)
			if err != nil {
				ws.err = err
				return
			}
			head, tail, err := protobuf.Default().WatchFrameParts(typ, gvk, len(item))
			if err != nil {
				ws.err = err
				return
			}
			ws.emit(head, item, tail)
			return
		}
		build := func() ([]byte, error) { return response.ProtoFrame(ws.res.GroupVersionKind(), typ, obj) }
		if served {
			build = func() ([]byte, error) { return response.ProtoObjectFrame(ws.res.GroupVersionKind(), typ, o) }
		}
		if shared && slot < 3 {
			frame, err = ev.Memo(slot+4, build)
		} else {
			frame, err = build()
		}
	case response.FormatTable:
		t, terr := response.Table(ws.res, [][]byte{obj}, ws.includeObject, !ws.tableSent, ws.s.now())
		if terr != nil {
			err = terr
			break
		}
		ws.tableSent = true
		b, _ := json.Marshal(t)
		frame = response.JSONFrame(typ, b)
	case response.FormatPartial:
		p, perr := response.PartialObject(obj)
		if perr != nil {
			err = perr
			break
		}
		frame = response.JSONFrame(typ, p)
	case response.FormatPartialProto:
		frame, err = response.ProtoFrame(response.PartialGVK, typ, obj)
	}
	if err != nil {
		ws.err = err
		return
	}
	ws.emit(frame)
}

// emit writes one event frame given as consecutive pieces. Small pieces
// are buffered; a piece of flushBytes or more (a large object, or a frame
// shared by all watchers) goes straight to the client without a copy, so
// a watch's buffer stays near flushBytes whatever the objects' size and
// however many objects its initial state holds.
func (ws *watchStream) emit(parts ...[]byte) {
	size := 0
	for _, p := range parts {
		size += len(p)
		if len(p) < flushBytes {
			ws.buf.Write(p)
			continue
		}
		ws.flush()
		ws.writeThrough(p)
	}
	ws.s.metrics.WatchEvent(ws.res.Group, ws.res.Version, ws.res.Plural, size)
	if ws.buf.Len() >= flushBytes {
		// A large initial state streams out as it is encoded rather than
		// being held whole.
		ws.flush()
	}
}

// writeThrough writes b, which the caller does not change, as flush writes
// the buffer: b stands in for the buffer during one flush.
func (ws *watchStream) writeThrough(b []byte) {
	kept := ws.buf
	ws.buf = *bytes.NewBuffer(b)
	ws.flush()
	ws.buf = kept
}

// flushBytes is how much a watch stream buffers before writing; a buffer
// grown past maxKeptBuffer by a burst is dropped after the write, so an
// idle watch holds little.
const (
	flushBytes    = 32 << 10
	maxKeptBuffer = 256 << 10
)

// sendBookmark writes a BOOKMARK for revision rev; end marks the end of
// a WatchList's initial state.
func (ws *watchStream) sendBookmark(rev int64, end bool) {
	frame, err := response.BookmarkFrame(ws.res, ws.f, rev, end)
	if err != nil {
		ws.err = err
		return
	}
	ws.buf.Write(frame)
}

func (ws *watchStream) sendStatus(e *apierror.StatusError) {
	ws.buf.Write(response.ErrorFrame(ws.f, e))
}

func (ws *watchStream) flush() {
	if ws.err != nil {
		return
	}
	// The deadline covers this write and flush only. Left in place it
	// would fire on an idle stream: HTTP/2 resets the stream when it
	// passes, HTTP/1.1 fails the next write, so a quiet watch would die.
	_ = ws.rc.SetWriteDeadline(time.Now().Add(ws.s.cfg.WatchWriteTimeout))
	if ws.buf.Len() > 0 {
		if _, err := ws.w.Write(ws.buf.Bytes()); err != nil {
			ws.err = err
		}
		if ws.buf.Cap() > maxKeptBuffer {
			ws.buf = bytes.Buffer{}
		} else {
			ws.buf.Reset()
		}
	}
	if ws.err == nil {
		if err := ws.rc.Flush(); err != nil {
			ws.err = err
		}
	}
	if ws.err == nil {
		_ = ws.rc.SetWriteDeadline(time.Time{})
	}
}
