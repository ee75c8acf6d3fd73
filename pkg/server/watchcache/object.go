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
	// JSON is the whole object with metadata.resourceVersion set.
	JSON []byte

	// proto holds the protobuf message weakly: it serves the fan-out of
	// one event to every protobuf watcher, then the garbage collector
	// may take it, so the cache does not keep a second copy of every
	// object beside its JSON. A later reader builds it again.
	proto atomic.Pointer[weak.Pointer[encoded]]
	views views[*Object]
}

// encoded is a built protobuf message, the target of Object.proto.
type encoded struct{ b []byte }

// Protobuf returns the object's protobuf message, built from JSON by
// build when no recent call's result is still alive, so the watchers of
// one event copy bytes instead of each encoding again. Concurrent first
// calls may both build; either result is kept.
func (o *Object) Protobuf(build func(json []byte) ([]byte, error)) ([]byte, error) {
	if w := o.proto.Load(); w != nil {
		if e := w.Value(); e != nil {
			return e.b, nil
		}
	}
	b, err := build(o.JSON)
	if err != nil {
		return nil, err
	}
	e := &encoded{b: b}
	w := weak.Make(e)
	o.proto.Store(&w)
	return e.b, nil
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
	memo  [memoSlots]struct {
		once sync.Once
		b    []byte
		err  error
	}
}

const memoSlots = 8

// Memo returns what build returns, calling it at most once per slot for
// the life of the event. Watch streams keep each encoding of the event in
// its own slot (slot < 8) so it is built once and shared by all watchers.
func (e *Event) Memo(slot int, build func() ([]byte, error)) ([]byte, error) {
	m := &e.memo[slot]
	m.once.Do(func() { m.b, m.err = build() })
	return m.b, m.err
}

func (e *Event) size() int {
	n := 64
	if e.Object != nil {
		n += len(e.Object.JSON)
	}
	return n
}
