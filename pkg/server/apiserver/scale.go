package apiserver

import (
	"net/http"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/params"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/response"
	"github.com/setpoint-dev/setpoint/pkg/server/registry/generic"
)

// updateScale serves PUT on the scale subresource: the body is a Scale,
// and only its spec.replicas is written, under its resourceVersion as a
// precondition.
func (s *Server) updateScale(w http.ResponseWriter, r *http.Request, req *request) error {
	bf, err := response.RequestFormat(r.Header.Get("Content-Type"), generic.ScaleResource)
	if err != nil {
		return err
	}
	body, err := params.ReadBody(w, r)
	if err != nil {
		return err
	}
	if body, err = params.JSONBody(bf, body, generic.ScaleGVK); err != nil {
		return err
	}
	var tm struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := params.UnmarshalJSON(body, &tm); err != nil {
		return apierror.BadRequest("the body is not a valid Scale: %v", err)
	}
	if (tm.Kind != "" && tm.Kind != generic.ScaleGVK.Kind) || (tm.APIVersion != "" && tm.APIVersion != generic.ScaleGVK.GroupVersion().String()) {
		return apierror.BadRequest("the body is a %s %s, not a %s", tm.APIVersion, tm.Kind, generic.ScaleGVK)
	}
	dryRun, err := params.DryRun(req.query)
	if err != nil {
		return err
	}
	return s.writeUpdate(w, r, req, dryRun, generic.DesiredScale(req.res, req.name, func([]byte) ([]byte, error) { return body, nil }))
}
