package protobuf

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

const (
	// ContentType is the media type of a single protobuf-encoded object.
	ContentType = runtime.ContentTypeProtobuf // "application/vnd.kubernetes.protobuf"
	// StreamContentType is the media type of a protobuf watch stream.
	StreamContentType = ContentType + ";stream=watch"
)

// magic starts every enveloped protobuf body: "k8s" and encoding style 0
// (the rest is a runtime.Unknown message).
var magic = []byte{'k', '8', 's', 0}

// Watch event types a frame may carry (watch.EventType values; the watch
// package is not imported for five strings).
const (
	eventAdded    = "ADDED"
	eventModified = "MODIFIED"
	eventDeleted  = "DELETED"
	eventBookmark = "BOOKMARK"
	eventError    = "ERROR"
)

// Errors the Codec returns, for errors.Is.
var (
	// ErrUnsupportedKind: the kind is not registered, or its type has no
	// protobuf encoding.
	ErrUnsupportedKind = errors.New("kind has no protobuf encoding")
	// ErrMalformed: the bytes are not a well-formed enveloped protobuf body.
	ErrMalformed = errors.New("malformed protobuf body")
)

// errDecodePanic marks a panic recovered in DecodeToJSON: a safety net for
// bytes from clients, which FuzzDecodeToJSON checks is never needed.
var errDecodePanic = errors.New("panic while decoding")

// kindInfo says how to make a kind's Go value and, for list kinds, where its
// items and list metadata are.
type kindInfo struct {
	typ      reflect.Type // the struct type; *typ implements runtime.Object
	items    []int        // index of the Items field; nil if not a list kind
	itemType reflect.Type // element type of Items
	listMeta []int        // index of the embedded metav1.ListMeta
}

func (k *kindInfo) isList() bool { return k.items != nil }

func (k *kindInfo) new() runtime.Object {
	return reflect.New(k.typ).Interface().(runtime.Object)
}

// Codec converts between stored JSON and protobuf for the kinds of its
// scheme. It is safe for concurrent use.
type Codec struct {
	scheme *runtime.Scheme
	proto  *protobuf.Serializer
	kinds  map[schema.GroupVersionKind]*kindInfo
	// options maps a metav1 options kind (DeleteOptions, ...) to its type,
	// so that options sent under any group version decode.
	options map[string]*kindInfo
}

// protoMessage is what a Go type needs to be encoded and decoded as
// protobuf: the generated methods of k8s.io/api and apimachinery types.
type protoMessage interface {
	runtime.ProtobufMarshaller
	Unmarshal([]byte) error
	Reset()
}

var (
	protoMessageType = reflect.TypeFor[protoMessage]()
	objectType       = reflect.TypeFor[runtime.Object]()
	listMetaType     = reflect.TypeFor[metav1.ListMeta]()
)

// NewCodec registers the given AddToScheme funcs plus metav1 (Status,
// DeleteOptions and the other options, WatchEvent, under "v1" and
// "meta.k8s.io/v1", and PartialObjectMetadata, PartialObjectMetadataList
// and Table under "meta.k8s.io/v1").
func NewCodec(addToScheme ...func(*runtime.Scheme) error) (*Codec, error) {
	s := runtime.NewScheme()
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	metav1.AddToGroupVersion(s, metav1.SchemeGroupVersion)
	if err := metav1.AddMetaToScheme(s); err != nil {
		return nil, err
	}
	for _, add := range addToScheme {
		if err := add(s); err != nil {
			return nil, err
		}
	}
	c := &Codec{
		scheme:  s,
		proto:   protobuf.NewSerializer(s, s),
		kinds:   make(map[schema.GroupVersionKind]*kindInfo),
		options: make(map[string]*kindInfo),
	}
	for gvk, t := range s.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal || t.Kind() != reflect.Struct {
			continue
		}
		pt := reflect.PointerTo(t)
		if !pt.Implements(protoMessageType) || !pt.Implements(objectType) {
			continue
		}
		info := &kindInfo{typ: t}
		if f, ok := t.FieldByName("Items"); ok && f.Type.Kind() == reflect.Slice {
			if lm, ok := t.FieldByName("ListMeta"); ok && lm.Type == listMetaType {
				info.items, info.itemType, info.listMeta = f.Index, f.Type.Elem(), lm.Index
			}
		}
		c.kinds[gvk] = info
		if gvk.GroupVersion() == metav1.SchemeGroupVersion && isOptionsKind(gvk.Kind) {
			c.options[gvk.Kind] = info
		}
	}
	return c, nil
}

func isOptionsKind(kind string) bool {
	switch kind {
	case "DeleteOptions", "ListOptions", "GetOptions", "CreateOptions", "UpdateOptions", "PatchOptions":
		return true
	}
	return false
}

// Scheme returns the codec's scheme. Callers must not register more types
// in it.
func (c *Codec) Scheme() *runtime.Scheme { return c.scheme }

// Supports reports whether gvk is a registered kind with a protobuf encoding.
func (c *Codec) Supports(gvk schema.GroupVersionKind) bool {
	_, ok := c.kinds[gvk]
	return ok
}

// ListKind returns the list kind whose items are of kind gvk (ConfigMapList
// for ConfigMap), if it is registered with a protobuf encoding.
func (c *Codec) ListKind(gvk schema.GroupVersionKind) (schema.GroupVersionKind, bool) {
	l := gvk.GroupVersion().WithKind(gvk.Kind + "List")
	info, ok := c.kinds[l]
	return l, ok && info.isList()
}

func (c *Codec) kind(gvk schema.GroupVersionKind) (*kindInfo, error) {
	info, ok := c.kinds[gvk]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrUnsupportedKind, gvkString(gvk))
	}
	return info, nil
}

func gvkString(gvk schema.GroupVersionKind) string {
	return fmt.Sprintf("apiVersion=%q kind=%q", gvk.GroupVersion().String(), gvk.Kind)
}

// DecodeToJSON decodes a protobuf request body ("k8s\x00" and a
// runtime.Unknown envelope) of any registered kind and returns the kind
// the envelope names and the object as JSON (encoding/json of the typed
// object, with apiVersion and kind set from the envelope).
//
// The metav1 options kinds (DeleteOptions, ...) decode under any group
// version, as clients send them under the group version of the resource
// they act on. DecodeToJSON returns an error, and never panics, on bytes
// that are not such a body.
func (c *Codec) DecodeToJSON(body []byte) (gvk schema.GroupVersionKind, out []byte, err error) {
	gvk, obj, err := c.Decode(body)
	if err != nil {
		return gvk, nil, err
	}
	out, err = json.Marshal(obj)
	if err != nil {
		return gvk, nil, fmt.Errorf("%w: %s cannot be written as JSON: %v", ErrMalformed, gvk.Kind, err)
	}
	return gvk, out, nil
}

// Decode is DecodeToJSON without the JSON: the typed object, with
// apiVersion and kind set from the envelope.
func (c *Codec) Decode(body []byte) (gvk schema.GroupVersionKind, obj runtime.Object, err error) {
	defer func() {
		if r := recover(); r != nil {
			gvk, obj, err = schema.GroupVersionKind{}, nil, fmt.Errorf("%w: %w: %v", ErrMalformed, errDecodePanic, r)
		}
	}()
	if !bytes.HasPrefix(body, magic) {
		return gvk, nil, fmt.Errorf("%w: does not start with the protobuf magic %q", ErrMalformed, magic)
	}
	var unk runtime.Unknown
	if _, _, err := c.proto.Decode(body, nil, &unk); err != nil {
		return gvk, nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	gv, err := schema.ParseGroupVersion(unk.APIVersion)
	if err != nil {
		return gvk, nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	gvk = gv.WithKind(unk.Kind)
	if gvk.Kind == "" || gvk.Version == "" {
		return gvk, nil, fmt.Errorf("%w: envelope has no apiVersion or kind (%s)", ErrMalformed, gvkString(gvk))
	}
	info, ok := c.kinds[gvk]
	if !ok {
		if info, ok = c.options[gvk.Kind]; !ok {
			return gvk, nil, fmt.Errorf("%w: %s", ErrUnsupportedKind, gvkString(gvk))
		}
	}
	obj = info.new()
	if err := obj.(protoMessage).Unmarshal(unk.Raw); err != nil {
		return gvk, nil, fmt.Errorf("%w: %s: %v", ErrMalformed, gvk.Kind, err)
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	return gvk, obj, nil
}

// EncodeObject turns the stored JSON of an object of kind gvk into a
// protobuf response body (envelope included). apiVersion and kind in the
// envelope are gvk's. Fields the typed object does not have are dropped,
// so gvk may also be meta.k8s.io/v1 PartialObjectMetadata, for a
// metadata-only answer from any object's JSON.
func (c *Codec) EncodeObject(gvk schema.GroupVersionKind, objJSON []byte) ([]byte, error) {
	obj, err := c.decodeStored(gvk, objJSON)
	if err != nil {
		return nil, err
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	return c.encode(obj)
}

// decodeStored decodes stored JSON into a new value of kind gvk.
func (c *Codec) decodeStored(gvk schema.GroupVersionKind, objJSON []byte) (runtime.Object, error) {
	info, err := c.kind(gvk)
	if err != nil {
		return nil, err
	}
	obj := info.new()
	if err := utiljson.Unmarshal(objJSON, obj); err != nil {
		return nil, fmt.Errorf("decoding stored %s: %w", gvk.Kind, err)
	}
	return obj, nil
}

// EncodeList builds a typed list of kind listGVK (a list kind from the
// scheme, such as v1 ConfigMapList; an item kind such as v1 ConfigMap is
// taken to mean its list kind) with the given list metadata and items,
// each item decoded from its stored JSON straight into the list's item
// type, and encodes it as a protobuf response body.
func (c *Codec) EncodeList(listGVK schema.GroupVersionKind, meta metav1.ListMeta, items [][]byte) ([]byte, error) {
	info, ok := c.kinds[listGVK]
	if !ok || !info.isList() {
		l, ok := c.ListKind(listGVK)
		if !ok {
			return nil, fmt.Errorf("%w: %s is not a list kind", ErrUnsupportedKind, gvkString(listGVK))
		}
		listGVK, info = l, c.kinds[l]
	}
	list := reflect.New(info.typ)
	v := list.Elem()
	v.FieldByIndex(info.listMeta).Set(reflect.ValueOf(meta))
	slice := reflect.MakeSlice(reflect.SliceOf(info.itemType), len(items), len(items))
	ptrItems := info.itemType.Kind() == reflect.Pointer
	for i, raw := range items {
		item := slice.Index(i)
		if ptrItems {
			item.Set(reflect.New(info.itemType.Elem()))
		} else {
			item = item.Addr()
		}
		if err := utiljson.Unmarshal(raw, item.Interface()); err != nil {
			return nil, fmt.Errorf("decoding stored item %d of %s: %w", i, listGVK.Kind, err)
		}
	}
	v.FieldByIndex(info.items).Set(slice)
	obj := list.Interface().(runtime.Object)
	obj.GetObjectKind().SetGroupVersionKind(listGVK)
	return c.encode(obj)
}

// EncodeStatus encodes a metav1.Status as a protobuf response body, with
// apiVersion v1 and kind Status unless s says otherwise.
func (c *Codec) EncodeStatus(s *metav1.Status) ([]byte, error) {
	if s == nil {
		return nil, errors.New("nil Status")
	}
	st := *s
	if st.APIVersion == "" {
		st.APIVersion = "v1"
	}
	if st.Kind == "" {
		st.Kind = "Status"
	}
	return c.encode(&st)
}

// WatchFrame returns one complete frame of a protobuf watch stream
// (StreamContentType): a 4-byte big-endian length, then a bare
// metav1.WatchEvent message of the given type whose object.raw is
// objectProto, the enveloped encoding of the object from EncodeObject or,
// for ERROR, EncodeStatus. This is byte for byte what kube-apiserver
// writes for such an event.
func (c *Codec) WatchFrame(eventType string, objectProto []byte) ([]byte, error) {
	switch eventType {
	case eventAdded, eventModified, eventDeleted, eventBookmark, eventError:
	default:
		return nil, fmt.Errorf("invalid watch event type %q", eventType)
	}
	if !bytes.HasPrefix(objectProto, magic) {
		return nil, fmt.Errorf("%w: watch event object must be an enveloped protobuf body", ErrMalformed)
	}
	ev := metav1.WatchEvent{Type: eventType, Object: runtime.RawExtension{Raw: objectProto}}
	size := ev.Size()
	if size > math.MaxUint32 {
		return nil, fmt.Errorf("watch event of %d bytes is too large for a frame", size)
	}
	frame := make([]byte, 4+size)
	n, err := ev.MarshalToSizedBuffer(frame[4:])
	if err != nil {
		return nil, err
	}
	if n != size {
		return nil, fmt.Errorf("watch event: Size said %d bytes, marshalled %d", size, n)
	}
	binary.BigEndian.PutUint32(frame, uint32(size))
	return frame, nil
}

// encode writes obj with the enveloping serializer into a buffer of its
// own: the serializer asks the allocator for one buffer and writes it in
// one call, which the writer keeps instead of copying.
func (c *Codec) encode(obj runtime.Object) ([]byte, error) {
	var w ownedWriter
	if err := c.proto.EncodeWithAllocator(obj, &w, &w); err != nil {
		return nil, err
	}
	return w.out, nil
}

// ownedWriter is both the allocator and the writer given to the serializer.
// A write of the buffer it allocated is kept as is (the buffer is this
// writer's, and nothing else holds it); anything else is copied.
type ownedWriter struct {
	buf []byte
	out []byte
}

func (w *ownedWriter) Allocate(n uint64) []byte {
	w.buf = make([]byte, n)
	return w.buf
}

func (w *ownedWriter) Write(p []byte) (int, error) {
	if w.out == nil && len(p) > 0 && len(w.buf) > 0 && &p[0] == &w.buf[0] {
		w.out = p[:len(p):len(p)]
		w.buf = nil
		return len(p), nil
	}
	w.out = append(w.out, p...)
	return len(p), nil
}
