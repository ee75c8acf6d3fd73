package apiserver

import (
	"context"
	"net/http"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/params"
	"github.com/setpoint-dev/setpoint/pkg/server/registry/generic"

	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
)

// tooLargeWait is how long a read asking for a revision the cache has not
// reached waits before answering 504, as kube-apiserver does.
const tooLargeWait = 3 * time.Second

func (s *Server) get(w http.ResponseWriter, r *http.Request, req *request) error {
	if req.subresource.Connects() {
		return s.connect(w, r, req)
	}
	var opts generic.GetOptions
	if rv := req.query.Get("resourceVersion"); rv != "" {
		n, err := params.ParseRV(rv)
		if err != nil {
			return err
		}
		opts = generic.GetOptions{Cached: true, NotOlder: n}
	}
	o, err := s.objects.Get(r.Context(), req.res, req.namespace, req.name, opts)
	if err != nil {
		return err
	}
	return s.writeResult(w, r, req, http.StatusOK, o.Served())
}

func (s *Server) list(w http.ResponseWriter, r *http.Request, req *request) error {
	sel, err := params.ParseSelection(req.query, req.res)
	if err != nil {
		return err
	}
	limit, err := params.ParseLimit(req.query)
	if err != nil {
		return err
	}
	items, meta, err := s.listObjects(r.Context(), req, sel, limit)
	if err != nil {
		return err
	}
	return s.writeList(w, r, req.res, items, meta)
}

// listObjects reads one page.
func (s *Server) listObjects(ctx context.Context, req *request, sel params.Selection, limit int) ([]*watchcache.Object, generic.ListMeta, error) {
	opts := generic.ListOptions{Match: sel.Match(), Limit: limit, Continue: req.query.Get("continue")}
	if opts.Continue != "" {
		if req.query.Get("resourceVersion") != "" {
			return nil, generic.ListMeta{}, apierror.BadRequest("specifying resource version is not allowed when using continue")
		}
	} else {
		rp, err := params.ParseReadPoint(req.query)
		if err != nil {
			return nil, generic.ListMeta{}, err
		}
		opts.ReadPoint = rp
	}
	return s.objects.List(ctx, req.res, req.namespace, opts)
}
