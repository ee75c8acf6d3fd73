package apiserver

import (
	"mime"
	"strings"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/protobuf"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

// format is how a response is encoded.
type format int

const (
	fmtJSON format = iota
	fmtYAML
	fmtProtobuf
	fmtTable
	fmtPartial      // PartialObjectMetadata(List) in JSON
	fmtPartialProto // the same in protobuf
)

// target is what a response carries.
type target int

const (
	targetObject target = iota
	targetList
	targetWatch
)

var offered = []string{
	"application/json", "application/yaml", protobuf.ContentType,
	"application/json;as=Table;v=v1;g=meta.k8s.io",
	"application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io",
	"application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io",
	protobuf.ContentType + ";as=PartialObjectMetadata;v=v1;g=meta.k8s.io",
	protobuf.ContentType + ";as=PartialObjectMetadataList;v=v1;g=meta.k8s.io",
}

var (
	partialGVK     = metav1.SchemeGroupVersion.WithKind("PartialObjectMetadata")
	partialListGVK = metav1.SchemeGroupVersion.WithKind("PartialObjectMetadataList")
)

// negotiate picks the first media type in Accept the server can produce
// for res, in the client's order. An empty Accept means JSON.
func negotiate(accept string, res *registry.Resource, t target) (format, error) {
	if strings.TrimSpace(accept) == "" {
		return fmtJSON, nil
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
				return fmtJSON, nil
			case as == "Table" && params["g"] == "meta.k8s.io" && (params["v"] == "v1" || params["v"] == "v1beta1"):
				return fmtTable, nil
			case params["g"] == "meta.k8s.io" && params["v"] == "v1" &&
				(as == "PartialObjectMetadata" && t != targetList || as == "PartialObjectMetadataList" && t == targetList):
				return fmtPartial, nil
			}
		case "application/yaml":
			if as == "" && t != targetWatch {
				return fmtYAML, nil
			}
		case protobuf.ContentType:
			switch {
			case as == "" && res != nil && res.Typed && protobuf.Default().Supports(res.GroupVersionKind()):
				return fmtProtobuf, nil
			case params["g"] == "meta.k8s.io" && params["v"] == "v1" &&
				(as == "PartialObjectMetadata" && t != targetList || as == "PartialObjectMetadataList" && t == targetList):
				// Metadata is protobuf for every kind, custom ones too.
				return fmtPartialProto, nil
			}
		}
	}
	return 0, apierror.NotAcceptable(offered)
}

// bodyFormat is how a request body is encoded.
type bodyFormat int

const (
	bodyJSON bodyFormat = iota
	bodyYAML
	bodyProtobuf
)

// requestFormat reads Content-Type for create and update bodies.
func requestFormat(contentType string, res *registry.Resource) (bodyFormat, error) {
	accepted := []string{"application/json", "application/yaml"}
	proto := res.Typed && protobuf.Default().Supports(res.GroupVersionKind())
	if proto {
		accepted = append(accepted, protobuf.ContentType)
	}
	if contentType == "" {
		return bodyJSON, nil
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return 0, apierror.UnsupportedMediaType(contentType, accepted)
	}
	switch {
	case mt == "application/json":
		return bodyJSON, nil
	case mt == "application/yaml":
		return bodyYAML, nil
	case mt == protobuf.ContentType && proto:
		return bodyProtobuf, nil
	}
	return 0, apierror.UnsupportedMediaType(contentType, accepted)
}
