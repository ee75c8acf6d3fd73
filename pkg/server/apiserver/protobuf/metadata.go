package protobuf

import (
	"bytes"
	"encoding/binary"
	"slices"
	"time"

	"github.com/setpoint-dev/setpoint/internal/jsonscan"
)

// A metadata-only watch (the garbage collector keeps one on every kind)
// needs each event's PartialObjectMetadata as protobuf. Decoding the
// stored JSON into Go values to encode them again cost more than all the
// rest of serving the event, so PartialItem writes the message straight
// from the JSON: ObjectMeta's fields are few and fixed.

// PartialItem returns the bare protobuf message of the PartialObjectMetadata
// of the stored object objJSON, the bytes EncodeItem returns for kind
// meta.k8s.io/v1 PartialObjectMetadata from the object's JSON. It reports
// false for JSON it does not read the way the decoder would (escaped keys,
// repeated members, values of another type, unusual numbers): EncodeItem
// is the answer there, and its errors too.
func PartialItem(objJSON []byte) ([]byte, bool) {
	s := jsonscan.New(objJSON)
	var m objectMeta
	found := false
	ok := s.Object(func(key []byte) bool {
		if string(key) != "metadata" {
			return s.Skip()
		}
		if found {
			return false
		}
		found = true
		return m.read(s)
	})
	if !ok || !found || !s.End() {
		return nil, false
	}
	size := m.size()
	out := make([]byte, 0, 1+uvarintLen(uint64(size))+size)
	out = appendTag(out, 1, wireBytes)
	out = binary.AppendUvarint(out, uint64(size))
	return m.appendTo(out), true
}

// objectMeta is metav1.ObjectMeta as read from JSON: strings are slices of
// the input (or unescaped copies), maps keep their entries in key order.
type objectMeta struct {
	name, generateName, namespace, selfLink, uid, resourceVersion []byte

	generation  int64
	created     time.Time
	deleted     *time.Time
	gracePeriod *int64
	labels      []pair
	annotations []pair
	owners      []ownerRef
	finalizers  [][]byte
	managed     []managedEntry
}

type pair struct{ key, value []byte }

type ownerRef struct {
	kind, name, uid, apiVersion []byte
	controller, block           *bool
}

type managedEntry struct {
	manager, operation, apiVersion, fieldsType, subresource []byte

	time *time.Time
	// fields is the raw JSON of fieldsV1, which FieldsV1 keeps as sent.
	fields []byte
}

// read reads the metadata object at s.
func (m *objectMeta) read(s *jsonscan.Scanner) bool {
	return s.Fields(metaFields, func(key []byte) bool {
		switch string(key) {
		case "name":
			return s.StringInto(&m.name)
		case "generateName":
			return s.StringInto(&m.generateName)
		case "namespace":
			return s.StringInto(&m.namespace)
		case "selfLink":
			return s.StringInto(&m.selfLink)
		case "uid":
			return s.StringInto(&m.uid)
		case "resourceVersion":
			return s.StringInto(&m.resourceVersion)
		case "generation":
			return s.IntInto(&m.generation)
		case "creationTimestamp":
			return s.TimeInto(&m.created)
		case "deletionTimestamp":
			m.deleted = new(time.Time)
			return s.TimeInto(m.deleted)
		case "deletionGracePeriodSeconds":
			m.gracePeriod = new(int64)
			return s.IntInto(m.gracePeriod)
		case "labels":
			return stringMap(s, &m.labels)
		case "annotations":
			return stringMap(s, &m.annotations)
		case "ownerReferences":
			return s.Array(func() bool {
				m.owners = append(m.owners, ownerRef{})
				return m.owners[len(m.owners)-1].read(s)
			})
		case "finalizers":
			return s.Array(func() bool {
				m.finalizers = append(m.finalizers, nil)
				return s.StringInto(&m.finalizers[len(m.finalizers)-1])
			})
		case "managedFields":
			return s.Array(func() bool {
				m.managed = append(m.managed, managedEntry{})
				return m.managed[len(m.managed)-1].read(s)
			})
		}
		return false
	})
}

// The members each message reads, as bits for fields to find repeats.
var (
	metaFields = fieldBits("name", "generateName", "namespace", "selfLink", "uid",
		"resourceVersion", "generation", "creationTimestamp", "deletionTimestamp",
		"deletionGracePeriodSeconds", "labels", "annotations", "ownerReferences",
		"finalizers", "managedFields")
	ownerFields   = fieldBits("kind", "name", "uid", "apiVersion", "controller", "blockOwnerDeletion")
	managedFields = fieldBits("manager", "operation", "apiVersion", "fieldsType", "subresource", "time", "fieldsV1")
)

func fieldBits(names ...string) map[string]uint32 {
	bits := make(map[string]uint32, len(names))
	for i, n := range names {
		bits[n] = 1 << i
	}
	return bits
}

// read reads one element of ownerReferences; null is an empty reference,
// as the decoder makes it.
func (o *ownerRef) read(s *jsonscan.Scanner) bool {
	if s.Null() {
		return true
	}
	return s.Fields(ownerFields, func(key []byte) bool {
		switch string(key) {
		case "kind":
			return s.StringInto(&o.kind)
		case "name":
			return s.StringInto(&o.name)
		case "uid":
			return s.StringInto(&o.uid)
		case "apiVersion":
			return s.StringInto(&o.apiVersion)
		case "controller":
			return s.BoolInto(&o.controller)
		case "blockOwnerDeletion":
			return s.BoolInto(&o.block)
		}
		return false
	})
}

// read reads one element of managedFields.
func (e *managedEntry) read(s *jsonscan.Scanner) bool {
	if s.Null() {
		return true
	}
	return s.Fields(managedFields, func(key []byte) bool {
		switch string(key) {
		case "manager":
			return s.StringInto(&e.manager)
		case "operation":
			return s.StringInto(&e.operation)
		case "apiVersion":
			return s.StringInto(&e.apiVersion)
		case "fieldsType":
			return s.StringInto(&e.fieldsType)
		case "subresource":
			return s.StringInto(&e.subresource)
		case "time":
			e.time = new(time.Time)
			return s.TimeInto(e.time)
		case "fieldsV1":
			// FieldsV1 keeps any value, but stored ones are objects.
			if s.Peek() != '{' {
				return false
			}
			start := s.PeekAt()
			if !s.Skip() {
				return false
			}
			e.fields = s.Span(start)
			return true
		}
		return false
	})
}

// Protobuf wire types, and the encoding of ObjectMeta and the messages in
// it as apimachinery's generated marshallers write them: every string
// field, even empty, and creationTimestamp always; pointers and slices
// only when set; map entries in key order.
const (
	wireVarint = 0
	wireBytes  = 2
)

func (m *objectMeta) size() int {
	n := bytesSize(1, m.name) + bytesSize(1, m.generateName) + bytesSize(1, m.namespace) +
		bytesSize(1, m.selfLink) + bytesSize(1, m.uid) + bytesSize(1, m.resourceVersion) +
		1 + uvarintLen(uint64(m.generation)) + msgSize(1, timeSize(m.created))
	if m.deleted != nil {
		n += msgSize(1, timeSize(*m.deleted))
	}
	if m.gracePeriod != nil {
		n += 1 + uvarintLen(uint64(*m.gracePeriod))
	}
	for _, p := range m.labels {
		n += msgSize(1, p.size())
	}
	for _, p := range m.annotations {
		n += msgSize(1, p.size())
	}
	for i := range m.owners {
		n += msgSize(1, m.owners[i].size())
	}
	for _, f := range m.finalizers {
		n += bytesSize(1, f)
	}
	for i := range m.managed {
		n += msgSize(2, m.managed[i].size())
	}
	return n
}

func (m *objectMeta) appendTo(b []byte) []byte {
	b = appendBytes(b, 1, m.name)
	b = appendBytes(b, 2, m.generateName)
	b = appendBytes(b, 3, m.namespace)
	b = appendBytes(b, 4, m.selfLink)
	b = appendBytes(b, 5, m.uid)
	b = appendBytes(b, 6, m.resourceVersion)
	b = appendVarint(b, 7, uint64(m.generation))
	b = appendTime(b, 8, m.created)
	if m.deleted != nil {
		b = appendTime(b, 9, *m.deleted)
	}
	if m.gracePeriod != nil {
		b = appendVarint(b, 10, uint64(*m.gracePeriod))
	}
	for _, p := range m.labels {
		b = p.appendTo(b, 11)
	}
	for _, p := range m.annotations {
		b = p.appendTo(b, 12)
	}
	for i := range m.owners {
		o := &m.owners[i]
		b = appendTag(b, 13, wireBytes)
		b = binary.AppendUvarint(b, uint64(o.size()))
		b = o.appendTo(b)
	}
	for _, f := range m.finalizers {
		b = appendBytes(b, 14, f)
	}
	for i := range m.managed {
		e := &m.managed[i]
		b = appendTag(b, 17, wireBytes)
		b = binary.AppendUvarint(b, uint64(e.size()))
		b = e.appendTo(b)
	}
	return b
}

func (p pair) size() int { return bytesSize(1, p.key) + bytesSize(1, p.value) }

func (p pair) appendTo(b []byte, field int) []byte {
	b = appendTag(b, field, wireBytes)
	b = binary.AppendUvarint(b, uint64(p.size()))
	b = appendBytes(b, 1, p.key)
	return appendBytes(b, 2, p.value)
}

func (o *ownerRef) size() int {
	n := bytesSize(1, o.kind) + bytesSize(1, o.name) + bytesSize(1, o.uid) + bytesSize(1, o.apiVersion)
	if o.controller != nil {
		n += 2
	}
	if o.block != nil {
		n += 2
	}
	return n
}

func (o *ownerRef) appendTo(b []byte) []byte {
	b = appendBytes(b, 1, o.kind)
	b = appendBytes(b, 3, o.name)
	b = appendBytes(b, 4, o.uid)
	b = appendBytes(b, 5, o.apiVersion)
	if o.controller != nil {
		b = appendVarint(b, 6, boolValue(*o.controller))
	}
	if o.block != nil {
		b = appendVarint(b, 7, boolValue(*o.block))
	}
	return b
}

func (e *managedEntry) size() int {
	n := bytesSize(1, e.manager) + bytesSize(1, e.operation) + bytesSize(1, e.apiVersion) +
		bytesSize(1, e.fieldsType) + bytesSize(1, e.subresource)
	if e.time != nil {
		n += msgSize(1, timeSize(*e.time))
	}
	if e.fields != nil {
		n += msgSize(1, bytesSize(1, e.fields))
	}
	return n
}

func (e *managedEntry) appendTo(b []byte) []byte {
	b = appendBytes(b, 1, e.manager)
	b = appendBytes(b, 2, e.operation)
	b = appendBytes(b, 3, e.apiVersion)
	if e.time != nil {
		b = appendTime(b, 4, *e.time)
	}
	b = appendBytes(b, 6, e.fieldsType)
	if e.fields != nil {
		b = appendTag(b, 7, wireBytes)
		b = binary.AppendUvarint(b, uint64(bytesSize(1, e.fields)))
		b = appendBytes(b, 1, e.fields)
	}
	return appendBytes(b, 8, e.subresource)
}

func boolValue(v bool) uint64 {
	if v {
		return 1
	}
	return 0
}

// timeSize is the size of metav1.Time's message: nothing for the zero
// time, else a Timestamp's seconds and nanos, which metav1.Time always
// writes as 0 (its JSON holds whole seconds).
func timeSize(t time.Time) int {
	if t.IsZero() {
		return 0
	}
	return 3 + uvarintLen(uint64(t.Unix()))
}

func appendTime(b []byte, field int, t time.Time) []byte {
	b = appendTag(b, field, wireBytes)
	b = binary.AppendUvarint(b, uint64(timeSize(t)))
	if t.IsZero() {
		return b
	}
	b = appendVarint(b, 1, uint64(t.Unix()))
	return appendVarint(b, 2, 0)
}

// tagSize is 1 for fields below 16, which is every field here but
// ObjectMeta's managedFields (17), whose tag takes 2 bytes.
func msgSize(tagSize, n int) int          { return tagSize + uvarintLen(uint64(n)) + n }
func bytesSize(tagSize int, v []byte) int { return msgSize(tagSize, len(v)) }

func appendTag(b []byte, field, wire int) []byte {
	return binary.AppendUvarint(b, uint64(field<<3|wire))
}

func appendBytes(b []byte, field int, v []byte) []byte {
	b = appendTag(b, field, wireBytes)
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

func appendVarint(b []byte, field int, v uint64) []byte {
	b = appendTag(b, field, wireVarint)
	return binary.AppendUvarint(b, v)
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// stringMap reads a JSON object of strings into entries sorted by key,
// the order the generated marshaller writes map entries in.
func stringMap(s *jsonscan.Scanner, into *[]pair) bool {
	sorted := true
	ok := s.ObjectOf(jsonscan.UnescapedKeys, func(key []byte) bool {
		var p pair
		p.key = key
		if !s.StringInto(&p.value) {
			return false
		}
		if n := len(*into); n > 0 && bytes.Compare((*into)[n-1].key, key) >= 0 {
			sorted = false
		}
		*into = append(*into, p)
		return true
	})
	if !ok || sorted {
		return ok
	}
	slices.SortFunc(*into, func(a, b pair) int { return bytes.Compare(a.key, b.key) })
	for i := 1; i < len(*into); i++ {
		if bytes.Equal((*into)[i-1].key, (*into)[i].key) {
			return false // a repeated key: the decoder keeps the last
		}
	}
	return true
}
