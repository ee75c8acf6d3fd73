package response

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/registry/generic"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/protobuf"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
)

// EventCounter counts the events a watch sends and their encoded size,
// by resource (the server's metrics).
type EventCounter interface {
	WatchEvent(group, version, resource string, size int)
}

// WatchConfig is what one watch stream needs from its server and its
// request.
type WatchConfig struct {
	Resource *registry.Resource
	Format   Format
	// Match selects the objects the watcher sees; nil selects every one.
	Match func(*watchcache.Object) bool
	// IncludeObject is the request's includeObject, for Tables.
	IncludeObject string
	// Now is the clock of a Table's Age column.
	Now func() time.Time
	// WriteTimeout bounds one write and flush to the client.
	WriteTimeout time.Duration
	// BookmarkInterval is how often a BOOKMARK is sent; zero sends none.
	BookmarkInterval time.Duration
	// Revision is the newest revision the cache holds, which a BOOKMARK
	// reports when no newer event was sent.
	Revision func() int64
	// EndMarker bookmarks the end of a WatchList's initial state.
	EndMarker bool
	// Timeout ends the stream.
	Timeout time.Duration
	Events  EventCounter
}

// WatchStream writes one watch response.
type WatchStream struct {
	cfg       WatchConfig
	w         http.ResponseWriter
	rc        *http.ResponseController
	lastRev   int64
	tableSent bool
	buf       bytes.Buffer
	err       error

	// writing is when the write under way began (UnixNano), 0 between
	// writes; the watchdog cuts off a write that runs past WriteTimeout.
	writing  atomic.Int64
	dogMu    sync.Mutex
	watchdog *time.Timer
	finished bool
}

// NewWatchStream returns the stream of one watch, written to w.
func NewWatchStream(w http.ResponseWriter, cfg WatchConfig) *WatchStream {
	return &WatchStream{cfg: cfg, w: w, rc: http.NewResponseController(w)}
}

func (ws *WatchStream) start() {
	h := ws.w.Header()
	h.Set("Content-Type", StreamContentType(ws.cfg.Format))
	h.Set("Cache-Control", "no-cache, private")
	ws.w.WriteHeader(http.StatusOK)
	if ws.cfg.WriteTimeout > 0 {
		ws.watchdog = time.AfterFunc(ws.cfg.WriteTimeout, ws.checkStall)
	}
	ws.flush()
}

// finish stops the watchdog; the stream's handler calls it before it
// returns, after which nothing may touch the response.
func (ws *WatchStream) finish() {
	ws.dogMu.Lock()
	defer ws.dogMu.Unlock()
	ws.finished = true
	if ws.watchdog != nil {
		ws.watchdog.Stop()
	}
}

// checkStall runs on the watchdog's timer. A write that has run for
// WriteTimeout gets a deadline already past, which fails it at once
// (HTTP/2 resets the stream, HTTP/1.1 fails the write): a client that
// stopped reading is cut off. One timer per stream replaces a deadline
// set and cleared around every write, which cost more than the write of
// a small event to a thousand watchers.
func (ws *WatchStream) checkStall() {
	ws.dogMu.Lock()
	defer ws.dogMu.Unlock()
	if ws.finished {
		return
	}
	wait := ws.cfg.WriteTimeout
	if began := ws.writing.Load(); began != 0 {
		stalled := time.Since(time.Unix(0, began))
		if stalled >= ws.cfg.WriteTimeout {
			_ = ws.rc.SetWriteDeadline(time.Unix(1, 0))
			return
		}
		wait -= stalled
	}
	ws.watchdog.Reset(wait)
}

// send writes one event. Frames of cache events in JSON and protobuf are
// built once per event and shared by every watcher (ev non-nil).
func (ws *WatchStream) send(typ string, o *watchcache.Object, ev *watchcache.Event, slot int) {
	if ws.err != nil {
		return
	}
	res := ws.cfg.Resource
	obj := o.Served()
	// served: the cached object is already in the version served, so its
	// kept protobuf message fits; shared: the event's frames are too.
	served := o.APIVersion == res.APIVersion()
	shared := ev != nil && served
	if !served {
		var err error
		if obj, err = generic.ServedVersion(res, obj); err != nil {
			ws.err = err
			return
		}
	}
	var frame []byte
	var err error
	switch ws.cfg.Format {
	case FormatJSON:
		if !shared {
			// The initial state, above all: the frame is written in
			// pieces around the cached bytes instead of being built for
			// each watcher.
			ws.emit([]byte(`{"type":"`+typ+`","object":`), obj, []byte("}\n"))
			return
		}
		frame, err = ev.Memo(slot, func() ([]byte, error) { return JSONFrame(typ, obj), nil })
	case FormatProtobuf:
		if served && !(shared && slot < 3) {
			// As for JSON: the object's kept message is written between
			// the frame's head and tail, not copied into a frame.
			gvk := res.GroupVersionKind()
			item, err := ProtoItem(gvk, o)
			ws.emitItem(typ, gvk, item, err)
			return
		}
		build := func() ([]byte, error) { return ProtoFrame(res.GroupVersionKind(), typ, obj) }
		if served {
			build = func() ([]byte, error) { return ProtoObjectFrame(res.GroupVersionKind(), typ, o) }
		}
		if shared && slot < 3 {
			frame, err = ev.Memo(slot+4, build)
		} else {
			frame, err = build()
		}
	case FormatTable:
		t, terr := Table(res, [][]byte{obj}, ws.cfg.IncludeObject, !ws.tableSent, ws.cfg.Now())
		if terr != nil {
			err = terr
			break
		}
		ws.tableSent = true
		b, _ := json.Marshal(t)
		frame = JSONFrame(typ, b)
	case FormatPartial:
		p, perr := PartialObject(obj)
		if perr != nil {
			err = perr
			break
		}
		frame = JSONFrame(typ, p)
	case FormatPartialProto:
		item, err := PartialProtoItem(obj)
		ws.emitItem(typ, PartialGVK, item, err)
		return
	}
	if err != nil {
		ws.err = err
		return
	}
	ws.emit(frame)
}

// emitItem writes a protobuf event around item, a bare message of kind
// gvk (or fails the stream with err, from making it), without copying
// the message into a frame.
func (ws *WatchStream) emitItem(typ string, gvk schema.GroupVersionKind, item []byte, err error) {
	var head, tail []byte
	if err == nil {
		head, tail, err = protobuf.Default().WatchFrameParts(typ, gvk, len(item))
	}
	if err != nil {
		ws.err = err
		return
	}
	ws.emit(head, item, tail)
}

// emit writes one event frame given as consecutive pieces. Small pieces
// are buffered; a piece of flushBytes or more (a large object, or a frame
// shared by all watchers) goes straight to the client without a copy, so
// a watch's buffer stays near flushBytes whatever the objects' size and
// however many objects its initial state holds.
func (ws *WatchStream) emit(parts ...[]byte) {
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
	res := ws.cfg.Resource
	ws.cfg.Events.WatchEvent(res.Group, res.Version, res.Plural, size)
	if ws.buf.Len() >= flushBytes {
		// A large initial state streams out as it is encoded rather than
		// being held whole.
		ws.flush()
	}
}

// writeThrough writes b, which the caller does not change, as flush writes
// the buffer: b stands in for the buffer during one flush.
func (ws *WatchStream) writeThrough(b []byte) {
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
func (ws *WatchStream) sendBookmark(rev int64, end bool) {
	frame, err := BookmarkFrame(ws.cfg.Resource, ws.cfg.Format, rev, end)
	if err != nil {
		ws.err = err
		return
	}
	ws.buf.Write(frame)
}

func (ws *WatchStream) sendStatus(e *apierror.StatusError) {
	ws.buf.Write(ErrorFrame(ws.cfg.Format, e))
}

func (ws *WatchStream) flush() {
	if ws.err != nil {
		return
	}
	ws.writing.Store(time.Now().UnixNano())
	defer ws.writing.Store(0)
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
}
