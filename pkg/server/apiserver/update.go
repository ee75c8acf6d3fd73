package apiserver

import (
	"net/http"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/params"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/server/registry/generic"
)

func (s *Server) update(w http.ResponseWriter, r *http.Request, req *request) error {
	if req.subresource == registry.SubresourceScale {
		return s.updateScale(w, r, req)
	}
	u, warnings, err := params.DecodeObject(w, r, req.res, req.name, req.query)
	if err != nil {
		return err
	}
	dryRun, err := params.DryRun(req.query)
	if err != nil {
		return err
	}
	setWarnings(w, warnings)
	b, created, err := s.objects.Put(r.Context(), req.res, req.namespace, req.name, u, generic.UpdateOptions{
		Subresource: req.subresource, DryRun: dryRun, FieldManager: params.Manager(r, req.query),
	})
	switch {
	case err != nil:
		return err
	case created:
		return s.writeObject(w, r, req.res, http.StatusCreated, b)
	}
	return s.writeResult(w, r, req, http.StatusOK, b)
}

// writeUpdate is the shared tail of PUT and PATCH: the store computes the
// requested object with desired and writes it; the answer is the object,
// or its Scale.
func (s *Server) writeUpdate(w http.ResponseWriter, r *http.Request, req *request, dryRun bool, desired generic.Desired) error {
	b, err := s.objects.Update(r.Context(), req.res, req.namespace, req.name, desired, generic.UpdateOptions{
		Subresource: req.subresource, DryRun: dryRun, FieldManager: params.Manager(r, req.query),
	})
	if err != nil {
		return err
	}
	return s.writeResult(w, r, req, http.StatusOK, b)
}
