package client

import (
	"bytes"
	"errors"
	"fmt"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

// The protobuf wrappers around an object (a watch event, the envelope's
// runtime.Unknown) are read in place: their generated Unmarshal methods
// copy the enclosed object, twice per watch event, only for the object's
// own Unmarshal to copy every field out again.

var errTruncated = errors.New("truncated protobuf message")

// wireField is one field of a protobuf message: its number and, for the
// length-delimited wire type, its bytes (aliasing the message).
type wireField struct {
	num   uint64
	bytes []byte
	isLen bool
}

// nextField reads the field at the start of b and returns the rest.
func nextField(b []byte) (wireField, []byte, error) { return readField(b, false) }

// readField is nextField; inside a group, which is skipped unread, the
// generated code accepts any field number, and so does this.
func readField(b []byte, inGroup bool) (wireField, []byte, error) {
	tag, b, err := uvarint(b)
	if err != nil {
		return wireField{}, nil, err
	}
	f := wireField{num: tag >> 3}
	if f.num == 0 && !inGroup {
		return wireField{}, nil, errors.New("protobuf field number 0")
	}
	switch tag & 7 {
	case 0: // varint
		_, b, err = uvarint(b)
	case 1: // fixed64
		if len(b) < 8 {
			return wireField{}, nil, errTruncated
		}
		b = b[8:]
	case 2: // length-delimited
		var n uint64
		if n, b, err = uvarint(b); err == nil {
			if n > uint64(len(b)) {
				return wireField{}, nil, errTruncated
			}
			f.bytes, f.isLen, b = b[:n], true, b[n:]
		}
	case 5: // fixed32
		if len(b) < 4 {
			return wireField{}, nil, errTruncated
		}
		b = b[4:]
	case 3: // a group, long deprecated but still legal: skip to its end
		for {
			if len(b) == 0 {
				return wireField{}, nil, errTruncated
			}
			end, rest, err := uvarint(b)
			// Like the generated code, any end-group tag closes it.
			if err == nil && end&7 == 4 {
				return f, rest, nil
			}
			var inner wireField
			if inner, b, err = readField(b, true); err != nil {
				return inner, nil, err
			}
		}
	default:
		return wireField{}, nil, fmt.Errorf("protobuf wire type %d not supported", tag&7)
	}
	return f, b, err
}

func uvarint(b []byte) (uint64, []byte, error) {
	var v uint64
	for i := 0; i < len(b) && i < 10; i++ {
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i] < 0x80 {
			return v, b[i+1:], nil
		}
	}
	return 0, nil, errors.New("bad protobuf varint")
}

// eachField calls f for every length-delimited field of msg, in order,
// and stops at f's first error.
func eachField(msg []byte, f func(num uint64, val []byte) error) error {
	for len(msg) > 0 {
		fld, rest, err := nextField(msg)
		if err != nil {
			return err
		}
		if fld.isLen {
			if err := f(fld.num, fld.bytes); err != nil {
				return err
			}
		}
		msg = rest
	}
	return nil
}

// field1 returns the last occurrence of field 1 of msg, if any. A
// message field that occurs more than once is merged, so a later one
// without field 1 leaves an earlier value standing; callers pass the
// value so far as prev.
func field1(msg, prev []byte) ([]byte, error) {
	err := eachField(msg, func(num uint64, val []byte) error {
		if num == 1 {
			prev = val
		}
		return nil
	})
	return prev, err
}

// parseWatchEvent reads a metav1.WatchEvent (type = 1, object = 2, a
// RawExtension whose raw = 1) without copying the object.
func parseWatchEvent(frame []byte) (watch.EventType, []byte, error) {
	var typ, raw []byte
	err := eachField(frame, func(num uint64, val []byte) error {
		var err error
		switch num {
		case 1:
			typ = val
		case 2:
			raw, err = field1(val, raw)
		}
		return err
	})
	if err != nil {
		return "", nil, err
	}
	return eventType(typ), raw, nil
}

// eventType returns the constant for a known event type, so the common
// case allocates nothing.
func eventType(b []byte) watch.EventType {
	for _, t := range []watch.EventType{watch.Added, watch.Modified, watch.Deleted, watch.Bookmark, watch.Error} {
		if string(b) == string(t) {
			return t
		}
	}
	return watch.EventType(b)
}

// envelope is an enveloped protobuf object, read in place.
type envelope struct {
	kind *envelopeKind
	raw  []byte
}

// envelopeKind is a kind seen in envelopes, with the strings a typed
// object's TypeMeta takes, shared by every object of the kind.
type envelopeKind struct {
	gvk        schema.GroupVersionKind
	apiVersion string
}

// openEnvelope reads "k8s\x00" and a runtime.Unknown (typeMeta = 1 with
// apiVersion = 1 and kind = 2; raw = 2) without copying raw.
func openEnvelope(data []byte) (envelope, error) {
	if !bytes.HasPrefix(data, protoMagic) {
		return envelope{}, fmt.Errorf("%w: protobuf body does not start with %q", ErrDecode, protoMagic)
	}
	var av, kind, raw []byte
	err := eachField(data[len(protoMagic):], func(num uint64, val []byte) error {
		switch num {
		case 1: // typeMeta, merged like any message field
			return eachField(val, func(num uint64, val []byte) error {
				switch num {
				case 1:
					av = val
				case 2:
					kind = val
				}
				return nil
			})
		case 2:
			raw = val
		}
		return nil
	})
	if err != nil {
		return envelope{}, fmt.Errorf("%w: protobuf envelope: %v", ErrDecode, err)
	}
	k, err := kinds.lookup(av, kind)
	if err != nil {
		return envelope{}, fmt.Errorf("%w: protobuf envelope: %v", ErrDecode, err)
	}
	return envelope{kind: k, raw: raw}, nil
}

// setKind stamps obj with the envelope's kind, sharing its strings when
// obj has a plain TypeMeta.
func (e envelope) setKind(obj runtime.Object) {
	if tm, ok := obj.GetObjectKind().(*metav1.TypeMeta); ok {
		tm.APIVersion, tm.Kind = e.kind.apiVersion, e.kind.gvk.Kind
		return
	}
	obj.GetObjectKind().SetGroupVersionKind(e.kind.gvk)
}

// kindTable remembers the kinds envelopes named. Servers serve a bounded
// set of kinds, so it only grows with the kinds a process reads.
type kindTable struct {
	mu sync.RWMutex
	m  map[string]*envelopeKind
}

var kinds = kindTable{m: map[string]*envelopeKind{}}

func (t *kindTable) lookup(apiVersion, kind []byte) (*envelopeKind, error) {
	var buf [128]byte
	key := append(append(append(buf[:0], apiVersion...), 0), kind...)
	t.mu.RLock()
	k, ok := t.m[string(key)]
	t.mu.RUnlock()
	if ok {
		return k, nil
	}
	gv, err := schema.ParseGroupVersion(string(apiVersion))
	if err != nil {
		return nil, err
	}
	k = &envelopeKind{gvk: gv.WithKind(string(kind)), apiVersion: gv.String()}
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.m) < maxKinds {
		t.m[string(key)] = k
	}
	return k, nil
}

// maxKinds bounds the table against a server that names endless kinds.
const maxKinds = 4096
