package response

import (
	"encoding/json"
	"strconv"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/protobuf"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
)

// initialEventsEnd marks the bookmark that ends a WatchList's initial
// state (KEP-3157).
const initialEventsEnd = "k8s.io/initial-events-end"

// StreamContentType is the Content-Type of a watch served in format f.
func StreamContentType(f Format) string {
	if f == FormatProtobuf || f == FormatPartialProto {
		return protobuf.StreamContentType
	}
	return "application/json"
}

// JSONFrame is one JSON watch event.
func JSONFrame(typ string, obj []byte) []byte {
	b := make([]byte, 0, len(obj)+32)
	b = append(b, `{"type":"`...)
	b = append(b, typ...)
	b = append(b, `","object":`...)
	b = append(b, obj...)
	b = append(b, "}\n"...)
	return b
}

// BookmarkFrame is a BOOKMARK in format f: an object of the resource's
// kind with only its resourceVersion (and, ending a WatchList's initial
// state, the initial-events-end annotation).
func BookmarkFrame(res *registry.Resource, f Format, rev int64, end bool) ([]byte, error) {
	meta := map[string]any{"resourceVersion": strconv.FormatInt(rev, 10)}
	if end {
		ann := map[string]any{initialEventsEnd: "true"}
		blueprint, err := listBlueprint(res, f)
		if err != nil {
			return nil, err
		}
		if blueprint != "" {
			ann[initialEventsListBlueprint] = blueprint
		}
		meta["annotations"] = ann
	}
	b, _ := json.Marshal(map[string]any{"kind": res.Kind, "apiVersion": res.APIVersion(), "metadata": meta})
	switch f {
	case FormatProtobuf, FormatPartialProto:
		gvk := res.GroupVersionKind()
		if f == FormatPartialProto {
			gvk = PartialGVK
		}
		return ProtoFrame(gvk, "BOOKMARK", b)
	case FormatPartial:
		p, _ := PartialObject(b)
		return JSONFrame("BOOKMARK", p), nil
	default:
		// Tables carry bookmarks as the bare object, as kube-apiserver
		// does; kubectl skips them.
		return JSONFrame("BOOKMARK", b), nil
	}
}

// ErrorFrame is an ERROR event carrying e, in protobuf when the watch is
// and the Status encodes, otherwise in JSON.
func ErrorFrame(f Format, e *apierror.StatusError) []byte {
	b, _ := json.Marshal(&e.Status)
	if f == FormatProtobuf || f == FormatPartialProto {
		pb, err := protobuf.Default().EncodeStatus(&e.Status)
		if err == nil {
			var frame []byte
			if frame, err = protobuf.Default().WatchFrame("ERROR", pb); err == nil {
				return frame
			}
		}
	}
	return JSONFrame("ERROR", b)
}

// ProtoFrame encodes an object as kind gvk in a protobuf watch frame.
func ProtoFrame(gvk schema.GroupVersionKind, typ string, obj []byte) ([]byte, error) {
	pb, err := protobuf.Default().EncodeObject(gvk, obj)
	if err != nil {
		return nil, err
	}
	return protobuf.Default().WatchFrame(typ, pb)
}

// ProtoObjectFrame is ProtoFrame for a cached object, reusing (or
// keeping) its protobuf message.
func ProtoObjectFrame(gvk schema.GroupVersionKind, typ string, o *watchcache.Object) ([]byte, error) {
	item, err := ProtoItem(gvk, o)
	if err != nil {
		return nil, err
	}
	pb, err := protobuf.Default().Envelope(gvk, item)
	if err != nil {
		return nil, err
	}
	return protobuf.Default().WatchFrame(typ, pb)
}

// ProtoItem is o's protobuf message as kind gvk, encoded once and kept
// with the cached object.
func ProtoItem(gvk schema.GroupVersionKind, o *watchcache.Object) ([]byte, error) {
	return o.Protobuf(func(js []byte) ([]byte, error) { return protobuf.Default().EncodeItem(gvk, js) })
}

// PartialProtoItem is the PartialObjectMetadata message of the stored
// object obj, for metadata-only answers in protobuf.
func PartialProtoItem(obj []byte) ([]byte, error) {
	if item, ok := protobuf.PartialItem(obj); ok {
		return item, nil
	}
	return protobuf.Default().EncodeItem(PartialGVK, metadataObject(obj))
}
