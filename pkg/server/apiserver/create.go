package apiserver

import (
	"net/http"
	"strings"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/registry/generic"
)

func (s *Server) create(w http.ResponseWriter, r *http.Request, req *request) error {
	u, warnings, err := s.decodeObject(w, r, req)
	if err != nil {
		return err
	}
	dryRun, err := parseDryRun(req)
	if err != nil {
		return err
	}
	setWarnings(w, warnings)
	b, err := s.objects.Create(r.Context(), req.res, req.namespace, u, generic.CreateOptions{
		DryRun: dryRun, FieldManager: managerName(r, req), EmptyNamespace: req.emptyNamespace,
	})
	if err != nil {
		return err
	}
	return s.writeObject(w, r, req.res, http.StatusCreated, b)
}

func parseDryRun(req *request) (bool, error) {
	vals := req.query["dryRun"]
	for _, v := range vals {
		if v != "All" {
			return false, apierror.BadRequest("dryRun must be All, not %q", v)
		}
	}
	return len(vals) > 0, nil
}

// setWarnings adds Warning headers in the form kubectl prints.
func setWarnings(w http.ResponseWriter, warnings []string) {
	for _, msg := range warnings {
		w.Header().Add("Warning", `299 - "`+strings.ReplaceAll(msg, `"`, `\"`)+`"`)
	}
}
