package apiserver

import (
	"net/http"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/server/registry/generic"
)

// connect serves a subresource that reaches what an object runs (pods'
// log, exec, attach, portforward): the kind's ConnectStrategy answers,
// with plain text as kube-apiserver streams a log.
func (s *Server) connect(w http.ResponseWriter, r *http.Request, req *request) error {
	cs, ok := req.res.Strategy.(registry.ConnectStrategy)
	if !ok {
		return apierror.PathNotFound()
	}
	o, err := s.objects.Get(r.Context(), req.res, req.namespace, req.name, generic.GetOptions{})
	if err != nil {
		return err
	}
	u, err := generic.ParseObject(o.Served())
	if err != nil {
		return apierror.Internal(err)
	}
	body, err := cs.Connect(u.Object, req.subresource, req.query)
	if err != nil {
		return apierror.From(err, req.res.GroupResource(), req.name)
	}
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
	return nil
}
