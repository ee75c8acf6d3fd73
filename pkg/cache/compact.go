package cache

import (
	"encoding/json"
	"reflect"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime/schema"
	sigsjson "sigs.k8s.io/json"
)

// A compact Store keeps each object as its encoding and decodes it on
// every read. A typed object costs about twice its wire size in memory
// (struct headers, one map per labels or data field, strings rounded up
// to allocation classes); its protobuf encoding costs its wire size. The
// price is a decode per read, which replaces the deep copy a caller that
// modifies what it reads (the manager's cached client) makes anyway, and
// readers get objects of their own rather than shared ones.
//
// Types with generated protobuf methods (every k8s.io/api kind) are kept
// as protobuf, others (unstructured objects, most custom types) as JSON.
// Protobuf does not tell an empty map or slice from a missing one, so a
// decoded object has nil where the original had an empty one, as every
// protobuf client of kube-apiserver sees it.

// protoMessage is what gogo-generated kinds provide.
type protoMessage interface {
	Marshal() ([]byte, error)
	Unmarshal([]byte) error
}

// codec encodes the objects of one Store. A Store holds one kind, so the
// codec learns the concrete type and the type metadata (which protobuf
// leaves out) from the first object it encodes; an object that differs
// from them is not encoded and the Store keeps it as it is.
type codec[T Object] struct {
	kind atomic.Pointer[codecKind] // set once, by the first encode
}

type codecKind struct {
	typ   reflect.Type // the concrete type; a pointer type
	gvk   schema.GroupVersionKind
	proto bool
}

// encode returns obj's encoding, or ok false when obj should be kept as
// it is.
func (c *codec[T]) encode(obj T) (raw []byte, ok bool) {
	typ := reflect.TypeOf(obj)
	if typ == nil || typ.Kind() != reflect.Pointer {
		return nil, false
	}
	gvk := obj.GetObjectKind().GroupVersionKind()
	k := c.kind.Load()
	if k == nil {
		_, isProto := any(obj).(protoMessage)
		c.kind.CompareAndSwap(nil, &codecKind{typ: typ, gvk: gvk, proto: isProto})
		k = c.kind.Load()
	}
	if k.typ != typ || (k.proto && k.gvk != gvk) {
		return nil, false
	}
	var err error
	if k.proto {
		raw, err = any(obj).(protoMessage).Marshal()
	} else {
		raw, err = json.Marshal(obj)
	}
	if err != nil || len(raw) == 0 {
		// An empty encoding would read as "not encoded".
		return nil, false
	}
	return raw, true
}

// decode returns a new object from raw, which encode returned.
func (c *codec[T]) decode(raw []byte) T {
	k := c.kind.Load()
	obj := reflect.New(k.typ.Elem()).Interface().(T)
	var err error
	if k.proto {
		err = any(obj).(protoMessage).Unmarshal(raw)
		if err == nil && !k.gvk.Empty() {
			obj.GetObjectKind().SetGroupVersionKind(k.gvk)
		}
	} else {
		// As the client decodes JSON: integers stay integers.
		err = sigsjson.UnmarshalCaseSensitivePreserveInts(raw, obj)
	}
	if err != nil {
		// The bytes are the codec's own encoding of an object of this
		// very type; failing to read them back is a bug, not bad input.
		panic("cache: decoding a compact object: " + err.Error())
	}
	return obj
}
