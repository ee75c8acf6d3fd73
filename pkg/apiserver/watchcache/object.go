package watchcache

import (
	"sync"

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
	Labels   labels.Set
	Fields   fields.Set
	// JSON is the whole object with metadata.resourceVersion set.
	JSON []byte
}

// DecodeFunc builds the served Object for a stored value whose
// resourceVersion is rev.
type DecodeFunc func(key string, value []byte, rev int64) (*Object, error)

// Event is one change to a resource.
type Event struct {
	Type     storage.EventType
	Revision int64
	// Object is the new state; for Deleted, the last state carrying the
	// delete's revision.
	Object *Object
	// Prev is the state before a Modified or Deleted.
	Prev *Object

	memo [memoSlots]struct {
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
