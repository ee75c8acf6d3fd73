package apiserver

import (
	"net/http"
	"strconv"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/params"
	"github.com/setpoint-dev/setpoint/pkg/server/registry/generic"
)

func (s *Server) delete(w http.ResponseWriter, r *http.Request, req *request) error {
	opts, err := params.DeleteOptions(w, r, req.query)
	if err != nil {
		return err
	}
	out, err := s.objects.Delete(r.Context(), req.res, req.namespace, req.name, opts)
	if err != nil {
		return err
	}
	if out.Gone && !req.res.AnswersDeleteWithObject() {
		// Built-in kinds answer an immediate delete with a Status, as
		// kube-apiserver does.
		writeSuccess(w, req.res, req.name, string(out.Object.GetUID()))
		return nil
	}
	return s.writeObject(w, r, req.res, http.StatusOK, out.JSON)
}

func (s *Server) deleteCollection(w http.ResponseWriter, r *http.Request, req *request) error {
	opts, err := params.DeleteOptions(w, r, req.query)
	if err != nil {
		return err
	}
	sel, err := params.ParseSelection(req.query, req.res)
	if err != nil {
		return err
	}
	items, rev, err := s.objects.DeleteCollection(r.Context(), req.res, req.namespace, sel.Match(), opts)
	if err != nil {
		return err
	}
	return s.writeList(w, r, req.res, items, generic.ListMeta{ResourceVersion: strconv.FormatInt(rev, 10)})
}
