package response

import (
	"encoding/base64"
	"encoding/json"
	"mime"
	"strings"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/protobuf"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

// initialEventsListBlueprint annotates a WatchList's end bookmark with
// the empty list the client fills with the initial events: client-go's
// watch-list clients (1.32 to 1.34) decode it to learn the list's kind
// and refuse the stream, falling back to a LIST, without it.
const initialEventsListBlueprint = "kubernetes.io/initial-events-list-blueprint"

// watchListOffered are the media types kube-apiserver names when it
// refuses a WatchList's Accept.
var watchListOffered = []string{"application/json", "application/yaml", protobuf.ContentType}

// NegotiateWatch picks a watch's format. A WatchList (sendInitialEvents)
// is never served as a Table, as in kube-apiserver: Table clauses of
// Accept are passed over, and an Accept of Tables only is a 406.
func NegotiateWatch(accept string, res *registry.Resource, watchList bool) (Format, error) {
	if !watchList || strings.TrimSpace(accept) == "" {
		return Negotiate(accept, res, TargetWatch)
	}
	var kept []string
	for _, part := range strings.Split(accept, ",") {
		if _, params, err := mime.ParseMediaType(strings.TrimSpace(part)); err == nil && params["as"] == "Table" {
			continue
		}
		kept = append(kept, part)
	}
	if len(kept) == 0 {
		return 0, apierror.NotAcceptable(watchListOffered)
	}
	return Negotiate(strings.Join(kept, ","), res, TargetWatch)
}

// listBlueprint is the encoded empty list of a WatchList in format f,
// base64-encoded, byte for byte what kube-apiserver sends: a typed list
// in JSON has empty metadata and null items, a custom resource's list
// (unstructured in kube-apiserver) has neither metadata nor items, and
// protobuf lists are the empty typed message.
func listBlueprint(res *registry.Resource, f Format) (string, error) {
	var b []byte
	var err error
	switch f {
	case FormatJSON:
		kind, _ := json.Marshal(res.ListKind)
		apiVersion, _ := json.Marshal(res.APIVersion())
		if res.Typed {
			b = []byte(`{"kind":` + string(kind) + `,"apiVersion":` + string(apiVersion) + `,"metadata":{},"items":null}` + "\n")
		} else {
			b = []byte(`{"apiVersion":` + string(apiVersion) + `,"items":[],"kind":` + string(kind) + `}` + "\n")
		}
	case FormatPartial:
		b = []byte(`{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{},"items":null}` + "\n")
	case FormatProtobuf:
		b, err = protobuf.Default().EncodeList(res.GroupVersion().WithKind(res.ListKind), metav1.ListMeta{}, nil)
	case FormatPartialProto:
		b, err = protobuf.Default().EncodeList(partialListGVK, metav1.ListMeta{}, nil)
	default:
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(b), nil
}
