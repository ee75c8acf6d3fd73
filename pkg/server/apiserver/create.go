package apiserver

import (
	"net/http"
	"strings"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/params"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/server/registry/generic"
)

func (s *Server) create(w http.ResponseWriter, r *http.Request, req *request) error {
	switch {
	case req.subresource == registry.SubresourceBinding:
		return s.bind(w, r, req)
	case req.subresource == registry.SubresourceEviction:
		return s.evict(w, r, req)
	case req.subresource == registry.SubresourceToken:
		return s.issueToken(w, r, req)
	case req.subresource.Connects():
		return s.connect(w, r, req)
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
	b, err := s.objects.Create(r.Context(), req.res, req.namespace, u, generic.CreateOptions{
		DryRun: dryRun, FieldManager: params.Manager(r, req.query), EmptyNamespace: req.emptyNamespace,
	})
	if err != nil {
		return err
	}
	return s.writeObject(w, r, req.res, http.StatusCreated, b)
}

// setWarnings adds Warning headers in the form kubectl prints.
func setWarnings(w http.ResponseWriter, warnings []string) {
	for _, msg := range warnings {
		w.Header().Add("Warning", `299 - "`+strings.ReplaceAll(msg, `"`, `\"`)+`"`)
	}
}
