package response

import (
	"bytes"
	"encoding/json"
	"net/http"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/registry/generic"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/protobuf"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

// Encoder writes objects and lists in the format a request negotiates.
// Now is the clock a Table's Age column is computed against.
type Encoder struct {
	Now func() time.Time
}

// Object writes one object, given as served JSON, in the format the
// client asked for.
func (enc Encoder) Object(w http.ResponseWriter, r *http.Request, res *registry.Resource, code int, obj []byte) error {
	f, err := Negotiate(r.Header.Get("Accept"), res, TargetObject)
	if err != nil {
		return err
	}
	obj, err = generic.ServedVersion(res, obj)
	if err != nil {
		return err
	}
	var body []byte
	contentType := "application/json"
	switch f {
	case FormatJSON:
		body = obj
	case FormatYAML:
		contentType = "application/yaml"
		if body, err = jsonToYAML(obj); err != nil {
			return apierror.Internal(err)
		}
	case FormatProtobuf:
		contentType = protobuf.ContentType
		if body, err = protobuf.Default().EncodeObject(res.GroupVersionKind(), obj); err != nil {
			return apierror.Internal(err)
		}
	case FormatTable:
		t, err := Table(res, [][]byte{obj}, r.URL.Query().Get("includeObject"), true, enc.Now())
		if err != nil {
			return err
		}
		body, _ = json.Marshal(t)
	case FormatPartial:
		if body, err = PartialObject(obj); err != nil {
			return apierror.Internal(err)
		}
	case FormatPartialProto:
		contentType = protobuf.ContentType
		item, err := PartialProtoItem(obj)
		if err != nil {
			return apierror.Internal(err)
		}
		if body, err = protobuf.Default().Envelope(PartialGVK, item); err != nil {
			return apierror.Internal(err)
		}
	}
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(code)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
	return nil
}

// PartialObject reduces an object to PartialObjectMetadata.
func PartialObject(obj []byte) ([]byte, error) {
	m, ok := memberValue(obj, "metadata")
	if !ok {
		var head struct {
			Metadata json.RawMessage `json:"metadata"`
		}
		if err := json.Unmarshal(obj, &head); err != nil {
			return nil, err
		}
		m = head.Metadata
	}
	var buf bytes.Buffer
	buf.WriteString(`{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":`)
	buf.Write(m)
	buf.WriteString("}")
	return buf.Bytes(), nil
}
