package response

import (
	"mime"
	"strings"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/protobuf"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

// Format is how a response is encoded.
type Format int

const (
	FormatJSON Format = iota
	FormatYAML
	FormatProtobuf
	FormatTable
	FormatPartial      // PartialObjectMetadata(List) in JSON
	FormatPartialProto // the same in protobuf
)

// Target is what a response carries.
type Target int

const (
	TargetObject Target = iota
	TargetList
	TargetWatch
)

var offered = []string{
	"application/json", "application/yaml", protobuf.ContentType,
	"application/json;as=Table;v=v1;g=meta.k8s.io",
	"application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io",
	"application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io",
	protobuf.ContentType + ";as=PartialObjectMetadata;v=v1;g=meta.k8s.io",
	protobuf.ContentType + ";as=PartialObjectMetadataList;v=v1;g=meta.k8s.io",
}

// PartialGVK and partialListGVK are the kinds of metadata-only answers.
var (
	PartialGVK     = metav1.SchemeGroupVersion.WithKind("PartialObjectMetadata")
	partialListGVK = metav1.SchemeGroupVersion.WithKind("PartialObjectMetadataList")
)

// Negotiate picks the first media type in Accept the server can produce
// for res, in the client's order. An empty Accept means JSON.
func Negotiate(accept string, res *registry.Resource, t Target) (Format, error) {
	if strings.TrimSpace(accept) == "" {
		return FormatJSON, nil
	}
	for _, part := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		if params["q"] == "0" {
			continue
		}
		as := params["as"]
		switch mt {
		case "application/json", "*/*", "application/*":
			switch {
			case as == "":
				return FormatJSON, nil
			case as == "Table" && params["g"] == "meta.k8s.io" && (params["v"] == "v1" || params["v"] == "v1beta1"):
				return FormatTable, nil
			case params["g"] == "meta.k8s.io" && params["v"] == "v1" &&
				(as == "PartialObjectMetadata" && t != TargetList || as == "PartialObjectMetadataList" && t == TargetList):
				return FormatPartial, nil
			}
		case "application/yaml":
			if as == "" && t != TargetWatch {
				return FormatYAML, nil
			}
		case protobuf.ContentType:
			switch {
			case as == "" && res != nil && res.Typed && protobuf.Default().Supports(res.GroupVersionKind()):
				return FormatProtobuf, nil
			case params["g"] == "meta.k8s.io" && params["v"] == "v1" &&
				(as == "PartialObjectMetadata" && t != TargetList || as == "PartialObjectMetadataList" && t == TargetList):
				// Metadata is protobuf for every kind, custom ones too.
				return FormatPartialProto, nil
			}
		}
	}
	return 0, apierror.NotAcceptable(offered)
}

// BodyFormat is how a request body is encoded.
type BodyFormat int

const (
	BodyJSON BodyFormat = iota
	BodyYAML
	BodyProtobuf
)

// RequestFormat reads Content-Type for create and update bodies.
func RequestFormat(contentType string, res *registry.Resource) (BodyFormat, error) {
	accepted := []string{"application/json", "application/yaml"}
	proto := res.Typed && protobuf.Default().Supports(res.GroupVersionKind())
	if proto {
		accepted = append(accepted, protobuf.ContentType)
	}
	if contentType == "" {
		return BodyJSON, nil
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return 0, apierror.UnsupportedMediaType(contentType, accepted)
	}
	switch {
	case mt == "application/json":
		return BodyJSON, nil
	case mt == "application/yaml":
		return BodyYAML, nil
	case mt == protobuf.ContentType && proto:
		return BodyProtobuf, nil
	}
	return 0, apierror.UnsupportedMediaType(contentType, accepted)
}
