package watchcache

import (
	"sync"
	"sync/atomic"
	"weak"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// Object is one version of an object as served: immutable once built.
type Object struct {
	Key       string
	Namespace string
	Name      string
	// Revision is the object's resourceVersion.
	Revision int64
	// APIVersion is the version JSON is in; a request for another
	// version of the resource is served the object's View.
	APIVersion string
	Labels     labels.Set
	Fields     fields.Fields
	// JSON is the whole object with metadata.resourceVersion set; read
	// it with Served. An object written through this server may instead
	// carry Stored, the bytes storage keeps (without resourceVersion),
	// and Stamp, which puts rev into them: the cache then shares its
	// bytes with an in-memory store rather than holding a second copy.
	JSON   []byte
	Stored []byte
	Stamp  func(stored []byte, rev int64) []byte

	// The served JSON built from Stored, and the protobuf message, are
	// held weakly: they serve the fan-out of one event to every watcher,
	// then the garbage collector may take them. A later reader builds
	// them again.
	served, proto rebuildable
	views         views[*Object]
}

// Served returns the whole object with metadata.resourceVersion set.
func (o *Object) Served() []byte {
	if o.JSON != nil || o.Stored == nil {
		return o.JSON
	}
	b, _ := o.served.get(func() ([]byte, error) { return o.Stamp(o.Stored, o.Revision), nil })
	return b
}

// size is what the object's bytes cost the cache, for its bounds.
func (o *Object) size() int {
	if o.JSON != nil {
		return len(o.JSON)
	}
	return len(o.Stored)
}

// Protobuf returns the object's protobuf message, built from its JSON
// by build when no recent call's result is still alive, so the watchers
// of one event copy bytes instead of each encoding again.
func (o *Object) Protobuf(build func(json []byte) ([]byte, error)) ([]byte, error) {
	return o.proto.get(func() ([]byte, error) { return build(o.Served()) })
}

// rebuildable holds bytes that can be built again, weakly: readers
// share the last build while any of them still holds it, or while it is
// among the recent builds.
type rebuildable struct {
	p  atomic.Pointer[weak.Pointer[built]]
	mu sync.Mutex // one build at a time
}

// built is the target of a rebuildable's weak pointer: a build's bytes
// or its error.
type built struct {
	b   []byte
	err error
}

// get returns the last build if it is still alive, and builds otherwise;
// concurrent callers wait for one build and share it.
func (r *rebuildable) get(build func() ([]byte, error)) ([]byte, error) {
	if b := r.alive(); b != nil {
		return b.b, b.err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if b := r.alive(); b != nil {
		return b.b, b.err
	}
	b, err := build()
	kept := &built{b: b, err: err}
	w := weak.Make(kept)
	r.p.Store(&w)
	recent.hold(kept)
	return b, err
}

func (r *rebuildable) alive() *built {
	if w := r.p.Load(); w != nil {
		return w.Value()
	}
	return nil
}

// size is what a build costs the recent builds; an error costs as
// little as a short message.
func (b *built) size() int { return len(b.b) + 64 }

// recentBytes bounds the builds recent keeps alive.
const recentBytes = 16 << 20

// recent holds the newest builds strongly, up to recentBytes, so that
// readers a moment apart (watchers resuming one after another, relists
// in a row) share them even across a collection; older builds live
// only as long as a reader holds them.
var recent keepAlive

// keepAlive is a queue of builds bounded by their total size.
type keepAlive struct {
	mu    sync.Mutex
	queue []*built
	head  int
	bytes int
}

func (k *keepAlive) hold(b *built) {
	if b.size() > recentBytes/4 {
		return // one build would crowd out the rest
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.queue = append(k.queue, b)
	k.bytes += b.size()
	for k.bytes > recentBytes {
		k.bytes -= k.queue[k.head].size()
		k.queue[k.head] = nil
		k.head++
	}
	// Compact once the dropped part is the larger half.
	if k.head > len(k.queue)/2 {
		n := copy(k.queue, k.queue[k.head:])
		clear(k.queue[n:])
		k.queue, k.head = k.queue[:n], 0
	}
}

// DecodeFunc builds the served Object for a stored value whose
// resourceVersion is rev.
type DecodeFunc func(key string, value []byte, rev int64) (*Object, error)

// EventType says what an event did to its object. The cache's events
// carry storage's types under these names, so readers of the cache (the
// endpoints) need nothing from storage.
type EventType = storage.EventType

// The event types.
const (
	Added    = storage.Added
	Modified = storage.Modified
	Deleted  = storage.Deleted
)

// Event is one change to a resource.
type Event struct {
	Type     EventType
	Revision int64
	// Object is the new state; for Deleted, the last state carrying the
	// delete's revision.
	Object *Object
	// Prev is the state before a Modified or Deleted.
	Prev *Object

	views views[*Event]
	memo  [memoSlots]rebuildable
}

const memoSlots = 8

// Memo returns what build returns, calling it once per slot while a
// result is alive. Watch streams keep each encoding of the event in its
// own slot (slot < 8), so the watchers of one event share one build; the
// event log does not keep them.
func (e *Event) Memo(slot int, build func() ([]byte, error)) ([]byte, error) {
	return e.memo[slot].get(build)
}

func (e *Event) size() int {
	n := 64
	if e.Object != nil {
		n += e.Object.size()
	}
	return n
}
