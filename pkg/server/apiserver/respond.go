package apiserver

import (
	"net/http"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/response"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/server/registry/generic"
	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
)

// The verbs answer through these, which package response serves: the
// encoding lives there, below every endpoint; these add the server's
// clock and the scale subresource's view.

func writeStatus(w http.ResponseWriter, e *apierror.StatusError) { response.WriteStatus(w, e) }

func writeSuccess(w http.ResponseWriter, res *registry.Resource, name, uid string) {
	response.WriteSuccess(w, res, name, uid)
}

func (s *Server) writeObject(w http.ResponseWriter, r *http.Request, res *registry.Resource, code int, obj []byte) error {
	return response.Encoder{Now: s.now}.Object(w, r, res, code, obj)
}

func (s *Server) writeList(w http.ResponseWriter, r *http.Request, res *registry.Resource, items []*watchcache.Object, meta generic.ListMeta) error {
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
