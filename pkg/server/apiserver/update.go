package apiserver

import (
	"net/http"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

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
	return s.writeUpdate(w, r, req, dryRun, func(*unstructured.Unstructured) (*unstructured.Unstructured, error) {
		return u.DeepCopy(), nil
	})
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
