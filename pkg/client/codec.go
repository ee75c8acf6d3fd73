package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"reflect"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	sigsjson "sigs.k8s.io/json"
)

const (
	mediaJSON     = "application/json"
	mediaProtobuf = "application/vnd.kubernetes.protobuf"

	// Metadata-only answers, asked for with these parameters on either
	// media type.
	asPartial     = ";as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
	asPartialList = ";as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
)

// protoMagic starts every enveloped protobuf body: "k8s" and encoding 0,
// then a runtime.Unknown naming the kind and holding the object.
var protoMagic = []byte{'k', '8', 's', 0}

// protoMessage is what the generated code of k8s.io/api and apimachinery
// types provides.
type protoMessage interface {
	Marshal() ([]byte, error)
	Unmarshal([]byte) error
	Reset()
}

// builtinPackage holds the built-in kinds' Go types. Those are the kinds
// every server speaks protobuf for; others (apiextensions, users' own
// types) may have protobuf methods the server cannot decode, so they go
// as JSON, as controller-runtime does.
const builtinPackage = "k8s.io/api/"

// protobufFor reports whether obj of kind gvk travels (or, for
// metadata-only objects, is answered) as protobuf.
func (c *Client) protobufFor(obj runtime.Object, f flavor, gvk schema.GroupVersionKind) bool {
	switch {
	case !c.protobuf || f == flavorUnstructured:
		return false
	case f == flavorMetadata:
		// PartialObjectMetadata is a meta.k8s.io type: servers encode it
		// as protobuf for every kind, custom resources included.
		return true
	}
	if _, refused := c.jsonOnly.Load(gvk.GroupKind()); refused {
		return false
	}
	if _, ok := obj.(protoMessage); !ok {
		return false
	}
	t := reflect.TypeOf(obj)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return strings.HasPrefix(t.PkgPath(), builtinPackage)
}

// accept is the Accept header for reading obj's kind: the preferred
// encoding first, JSON always last so any server can answer.
func accept(f flavor, proto, list bool) string {
	switch {
	case f == flavorMetadata:
		as := asPartial
		if list {
			as = asPartialList
		}
		// A server that cannot strip objects answers plain JSON, which
		// decodes into PartialObjectMetadata just as well.
		h := mediaJSON + as + "," + mediaJSON
		if proto {
			h = mediaProtobuf + as + "," + h
		}
		return h
	case proto:
		return mediaProtobuf + ", " + mediaJSON
	}
	return mediaJSON
}

// encode returns obj's body and content type. JSON bodies always carry
// apiVersion and kind, which Go structs built in code often leave empty;
// the caller's object is not changed.
func encode(obj runtime.Object, gvk schema.GroupVersionKind, proto bool) ([]byte, string, error) {
	if proto {
		b, err := encodeProtobuf(gvk, obj.(protoMessage))
		return b, mediaProtobuf, err
	}
	if obj.GetObjectKind().GroupVersionKind() != gvk {
		obj = obj.DeepCopyObject()
		obj.GetObjectKind().SetGroupVersionKind(gvk)
	}
	b, err := json.Marshal(obj)
	return b, mediaJSON, err
}

// encodeProtobuf wraps m's message in the envelope kube-apiserver reads.
func encodeProtobuf(gvk schema.GroupVersionKind, m protoMessage) ([]byte, error) {
	raw, err := m.Marshal()
	if err != nil {
		return nil, err
	}
	unk := runtime.Unknown{
		TypeMeta: runtime.TypeMeta{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind},
		Raw:      raw,
	}
	env, err := unk.Marshal()
	if err != nil {
		return nil, err
	}
	return append(bytes.Clone(protoMagic), env...), nil
}

// mediaType is the bare media type of a Content-Type header.
func mediaType(contentType string) string {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return strings.TrimSpace(strings.ToLower(strings.Split(contentType, ";")[0]))
	}
	return mt
}

// decodeInto empties obj and decodes an answer of the given content type
// into it.
func decodeInto(data []byte, contentType string, obj runtime.Object) error {
	resetObject(obj)
	if mediaType(contentType) == mediaProtobuf {
		m, ok := obj.(protoMessage)
		if !ok {
			return fmt.Errorf("%w: a protobuf answer for %T, which has no protobuf encoding", ErrDecode, obj)
		}
		env, err := openEnvelope(data)
		if err != nil {
			return err
		}
		if err := m.Unmarshal(env.raw); err != nil {
			return fmt.Errorf("%w: protobuf %s: %v", ErrDecode, env.kind.gvk.Kind, err)
		}
		env.setKind(obj)
		return nil
	}
	var err error
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		err = o.UnmarshalJSON(data)
	case *unstructured.UnstructuredList:
		err = o.UnmarshalJSON(data)
	default:
		err = sigsjson.UnmarshalCaseSensitivePreserveInts(data, obj)
	}
	if err != nil {
		return fmt.Errorf("%w: %v", ErrDecode, err)
	}
	return nil
}

// finish gives decoded objects their kind the same way whatever the
// encoding: protobuf carries no TypeMeta for list items, and
// metadata-only objects are labelled with the kind they describe (as
// controller-runtime does) rather than PartialObjectMetadata.
func finish(obj runtime.Object, f flavor, gvk, listGVK schema.GroupVersionKind) {
	if f == flavorUnstructured {
		return
	}
	own := gvk
	if !listGVK.Empty() {
		own = listGVK
	}
	if f == flavorMetadata || obj.GetObjectKind().GroupVersionKind().Empty() {
		obj.GetObjectKind().SetGroupVersionKind(own)
	}
	if listGVK.Empty() {
		return
	}
	switch l := obj.(type) {
	case *metav1.PartialObjectMetadataList:
		for i := range l.Items {
			l.Items[i].SetGroupVersionKind(gvk)
		}
	default:
		eachItem(obj, func(item runtime.Object) {
			if item.GetObjectKind().GroupVersionKind().Empty() {
				item.GetObjectKind().SetGroupVersionKind(gvk)
			}
		})
	}
}

// eachItem calls fn for every item of a typed list (its Items field).
func eachItem(list runtime.Object, fn func(runtime.Object)) {
	v := reflect.ValueOf(list)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return
	}
	items := v.Elem().FieldByName("Items")
	if !items.IsValid() || items.Kind() != reflect.Slice {
		return
	}
	for i := range items.Len() {
		it := items.Index(i)
		if it.Kind() != reflect.Pointer {
			it = it.Addr()
		}
		if o, ok := it.Interface().(runtime.Object); ok {
			fn(o)
		}
	}
}

// decodeStatus reads a Status from an error answer, in JSON or protobuf.
func decodeStatus(data []byte, contentType string) (metav1.Status, bool) {
	var st metav1.Status
	if mediaType(contentType) == mediaProtobuf {
		env, err := openEnvelope(data)
		if err != nil || env.kind.gvk.Kind != "Status" || st.Unmarshal(env.raw) != nil {
			return st, false
		}
		return st, true
	}
	// Some proxies and older servers leave out the kind; a failure
	// status with a code is a Status all the same.
	if err := json.Unmarshal(data, &st); err != nil || (st.Kind != "Status" && (st.Status != metav1.StatusFailure || st.Code == 0)) {
		return metav1.Status{}, false
	}
	return st, true
}
