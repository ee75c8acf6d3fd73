package apiserver

import (
	"net/http"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/response"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/server/registry/generic"
	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
)

// The verbs answer through these names, which package response serves:
// the encoding lives there, below every endpoint, and the verb code
// keeps its call sites.

type (
	bodyFormat = response.BodyFormat
	listMeta   = response.ListMeta
)

const (
	bodyYAML     = response.BodyYAML
	bodyProtobuf = response.BodyProtobuf
)

func requestFormat(contentType string, res *registry.Resource) (bodyFormat, error) {
	return response.RequestFormat(contentType, res)
}

func writeStatus(w http.ResponseWriter, e *apierror.StatusError) { response.WriteStatus(w, e) }

func writeSuccess(w http.ResponseWriter, res *registry.Resource, name, uid string) {
	response.WriteSuccess(w, res, name, uid)
}

func (s *Server) writeObject(w http.ResponseWriter, r *http.Request, res *registry.Resource, code int, obj []byte) error {
	return response.Encoder{Now: s.now}.Object(w, r, res, code, obj)
}

func (s *Server) writeList(w http.ResponseWriter, r *http.Request, res *registry.Resource, items []*watchcache.Object, meta listMeta) error {
	return response.Encoder{Now: s.now}.List(w, r, res, items, meta)
}

// writeResult writes an object read or written through req: the object
// itself, or its Scale for the scale subresource.
func (s *Server) writeResult(w http.ResponseWriter, r *http.Request, req *request, code int, obj []byte) error {
	if req.subresource != registry.SubresourceScale {
		return s.writeObject(w, r, req.res, code, obj)
	}
	b, err := generic.ScaleOf(req.res, obj)
	if err != nil {
		return err
	}
	return s.writeObject(w, r, generic.ScaleResource, code, b)
}
