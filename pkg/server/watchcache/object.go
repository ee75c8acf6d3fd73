package watchcache

import (
	"sync/atomic"

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
	cuts          atomic.Pointer[[]Span]
}

// Span is the bytes [Start, End) of an object's served JSON.
type Span struct{ Start, End int }

// Cuts returns what find returns for the object's served JSON, calling
// find once per object: every build of the served JSON is laid out
// alike, so what find reports of one holds for all. The endpoints use it
// for the members a list item leaves out; find must always be that one
// function.
func (o *Object) Cuts(find func(served []byte) []Span) []Span {
	if p := o.cuts.Load(); p != nil {
		return *p
	}
	c := find(o.Served())
	o.cuts.Store(&c)
	return c
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
