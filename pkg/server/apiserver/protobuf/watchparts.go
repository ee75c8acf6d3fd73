package protobuf

import (
	"encoding/binary"
	"fmt"
	"math"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// metav1.WatchEvent has type = 1 and object = 2; runtime.RawExtension has
// raw = 1.
const (
	tagEventType   = 1<<3 | 2
	tagEventObject = 2<<3 | 2
	tagRawExt      = 1<<3 | 2
)

// WatchFrameParts returns what goes before and after an item (a bare
// message from EncodeItem, itemLen bytes long) to make the frame
// WatchFrame(eventType, Envelope(gvk, item)) builds. A watch writes head,
// the object's kept item and tail in turn, so it need not copy the item
// for each watcher.
func (c *Codec) WatchFrameParts(eventType string, gvk schema.GroupVersionKind, itemLen int) (head, tail []byte, err error) {
	switch eventType {
	case eventAdded, eventModified, eventDeleted, eventBookmark, eventError:
	default:
		return nil, nil, fmt.Errorf("invalid watch event type %q", eventType)
	}
	envHead, envTail, err := envelopeParts(gvk, itemLen)
	if err != nil {
		return nil, nil, err
	}
	envLen := len(envHead) + itemLen + len(envTail)
	rawLen := fieldSize(envLen)
	size := fieldSize(len(eventType)) + fieldSize(rawLen)
	if size > math.MaxUint32 {
		return nil, nil, fmt.Errorf("watch event of %d bytes is too large for a frame", size)
	}
	head = binary.BigEndian.AppendUint32(make([]byte, 0, 32+len(envHead)), uint32(size))
	head = append(head, tagEventType)
	head = binary.AppendUvarint(head, uint64(len(eventType)))
	head = append(head, eventType...)
	head = append(head, tagEventObject)
	head = binary.AppendUvarint(head, uint64(rawLen))
	head = append(head, tagRawExt)
	head = binary.AppendUvarint(head, uint64(envLen))
	head = append(head, envHead...)
	return head, envTail, nil
}
