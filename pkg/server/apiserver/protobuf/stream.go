package protobuf

import (
	"encoding/binary"
	"fmt"
	"io"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// A server that keeps each object's protobuf message can answer a LIST
// by copying bytes: EncodeItem makes the message once, Envelope and
// WriteList wrap it without decoding anything again.

// protobuf wire types and the field tags used below: runtime.Unknown has
// typeMeta = 1, raw = 2, contentEncoding = 3, contentType = 4; every
// Kubernetes list has metadata = 1 and items = 2.
const (
	tagTypeMeta        = 1<<3 | 2
	tagRaw             = 2<<3 | 2
	tagContentEncoding = 3<<3 | 2
	tagContentType     = 4<<3 | 2
	tagListMeta        = 1<<3 | 2
	tagItems           = 2<<3 | 2
)

type marshaler interface{ Marshal() ([]byte, error) }

// EncodeItem returns the bare protobuf message (no envelope) of an object
// of kind gvk from its JSON: what a list carries as an item and what
// Envelope wraps into a response body.
func (c *Codec) EncodeItem(gvk schema.GroupVersionKind, objJSON []byte) ([]byte, error) {
	obj, err := c.decodeStored(gvk, objJSON)
	if err != nil {
		return nil, err
	}
	m, ok := obj.(marshaler)
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrUnsupportedKind, gvkString(gvk))
	}
	return m.Marshal()
}

// Envelope wraps a bare message from EncodeItem as a response body of
// kind gvk, the same bytes EncodeObject produces.
func (c *Codec) Envelope(gvk schema.GroupVersionKind, item []byte) ([]byte, error) {
	head, tail, err := envelopeParts(gvk, len(item))
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(head)+len(item)+len(tail))
	out = append(out, head...)
	out = append(out, item...)
	return append(out, tail...), nil
}

// WriteList writes a list response body of kind listGVK whose items are
// bare messages from EncodeItem, streaming the items instead of building
// the list: the only memory it needs beyond the items is the header.
func (c *Codec) WriteList(w io.Writer, listGVK schema.GroupVersionKind, meta metav1.ListMeta, items [][]byte) error {
	if info, ok := c.kinds[listGVK]; !ok || !info.isList() {
		return fmt.Errorf("%w: %s is not a list kind", ErrUnsupportedKind, gvkString(listGVK))
	}
	lm, err := meta.Marshal()
	if err != nil {
		return err
	}
	size := fieldSize(len(lm))
	for _, it := range items {
		size += fieldSize(len(it))
	}
	head, tail, err := envelopeParts(listGVK, size)
	if err != nil {
		return err
	}
	buf := append(head, tagListMeta)
	buf = binary.AppendUvarint(buf, uint64(len(lm)))
	buf = append(buf, lm...)
	if _, err := w.Write(buf); err != nil {
		return err
	}
	var hdr [1 + binary.MaxVarintLen64]byte
	for _, it := range items {
		hdr[0] = tagItems
		n := binary.PutUvarint(hdr[1:], uint64(len(it)))
		if _, err := w.Write(hdr[:1+n]); err != nil {
			return err
		}
		if _, err := w.Write(it); err != nil {
			return err
		}
	}
	_, err = w.Write(tail)
	return err
}

// envelopeParts returns what goes before and after a raw message of n
// bytes in a response body of kind gvk.
func envelopeParts(gvk schema.GroupVersionKind, n int) (head, tail []byte, err error) {
	tm, err := (&runtime.TypeMeta{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind}).Marshal()
	if err != nil {
		return nil, nil, err
	}
	head = append(head, magic...)
	head = append(head, tagTypeMeta)
	head = binary.AppendUvarint(head, uint64(len(tm)))
	head = append(head, tm...)
	head = append(head, tagRaw)
	head = binary.AppendUvarint(head, uint64(n))
	// contentEncoding and contentType are empty, written as the generated
	// marshaller writes them.
	tail = []byte{tagContentEncoding, 0, tagContentType, 0}
	return head, tail, nil
}

func fieldSize(n int) int {
	var b [binary.MaxVarintLen64]byte
	return 1 + binary.PutUvarint(b[:], uint64(n)) + n
}
