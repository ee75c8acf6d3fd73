package apiserver

import (
	"net/http"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/params"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/response"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

// bindingKind describes core/v1 Binding bodies for decoding.
var bindingKind = &registry.Resource{Version: "v1", Kind: "Binding", Plural: "bindings", Namespaced: true, Typed: true}

// bind serves POST on an object's binding subresource (pods/binding, as
// kube-scheduler binds): the body is a Binding, the answer a Success
// Status with code 201, as kube-apiserver answers it.
func (s *Server) bind(w http.ResponseWriter, r *http.Request, req *request) error {
	u, _, err := params.DecodeObject(w, r, bindingKind, req.name, req.query)
	if err != nil {
		return err
	}
	dryRun, err := params.DryRun(req.query)
	if err != nil {
		return err
	}
	if err := s.objects.Bind(r.Context(), req.res, req.namespace, req.name, u.Object, dryRun); err != nil {
		return err
	}
	response.WriteCreated(w)
	return nil
}
