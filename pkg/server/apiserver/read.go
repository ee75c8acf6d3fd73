package apiserver

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/registry/generic"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
)

// tooLargeWait is how long a read asking for a revision the cache has not
// reached waits before answering 504, as kube-apiserver does.
const tooLargeWait = 3 * time.Second

func (s *Server) get(w http.ResponseWriter, r *http.Request, req *request) error {
	var opts generic.GetOptions
	if rv := req.query.Get("resourceVersion"); rv != "" {
		n, err := parseRV(rv)
		if err != nil {
			return err
		}
		opts = generic.GetOptions{Cached: true, NotOlder: n}
	}
	o, err := s.objects.Get(r.Context(), req.res, req.namespace, req.name, opts)
	if err != nil {
		return err
	}
	return s.writeResult(w, r, req, http.StatusOK, o.JSON)
}

// selection is a parsed label and field selector.
type selection struct {
	label labels.Selector
	field fields.Selector
}

func (sel selection) empty() bool { return sel.label.Empty() && sel.field.Empty() }

func (sel selection) matches(o *watchcache.Object) bool {
	return sel.label.Matches(o.Labels) && sel.field.Matches(o.Fields)
}

// match is the selection as the store takes it: nil selects everything.
func (sel selection) match() func(*watchcache.Object) bool {
	if sel.empty() {
		return nil
	}
	return sel.matches
}

func parseSelection(q map[string][]string, res *registry.Resource) (selection, error) {
	get := func(k string) string {
		if v := q[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	ls, err := labels.Parse(get("labelSelector"))
	if err != nil {
		return selection{}, apierror.BadRequest("unable to parse requirement: %v", err)
	}
	fs, err := fields.ParseSelector(get("fieldSelector"))
	if err != nil {
		return selection{}, apierror.BadRequest("invalid field selector: %v", err)
	}
	for _, req := range fs.Requirements() {
		if !res.HasField(req.Field) {
			return selection{}, apierror.BadRequest("field label not supported: %s", req.Field)
		}
	}
	return selection{label: ls, field: fs}, nil
}

func parseRV(rv string) (int64, error) {
	n, err := strconv.ParseInt(rv, 10, 64)
	if err != nil || n < 0 {
		return 0, apierror.BadRequest("invalid resource version %q", rv)
	}
	return n, nil
}

func parseReadPoint(q map[string][]string) (generic.ReadPoint, error) {
	get := func(k string) string {
		if v := q[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	rv, match := get("resourceVersion"), get("resourceVersionMatch")
	if rv == "" {
		if match != "" {
			return generic.ReadPoint{}, apierror.BadRequest("resourceVersionMatch is forbidden unless resourceVersion is provided")
		}
		return generic.ReadPoint{Consistent: true}, nil
	}
	n, err := parseRV(rv)
	if err != nil {
		return generic.ReadPoint{}, err
	}
	switch match {
	case "", "NotOlderThan":
		return generic.ReadPoint{NotOlder: n}, nil
	case "Exact":
		if n == 0 {
			return generic.ReadPoint{}, apierror.BadRequest("resourceVersionMatch %q is forbidden for resourceVersion \"0\"", match)
		}
		return generic.ReadPoint{Exact: n}, nil
	}
	return generic.ReadPoint{}, apierror.BadRequest("resourceVersionMatch must be NotOlderThan or Exact, not %q", match)
}

func parseLimit(q map[string][]string) (int, error) {
	v := q["limit"]
	if len(v) == 0 || v[0] == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v[0])
	if err != nil || n < 0 {
		return 0, apierror.BadRequest("invalid limit %q", v[0])
	}
	return n, nil
}

func (s *Server) list(w http.ResponseWriter, r *http.Request, req *request) error {
	sel, err := parseSelection(req.query, req.res)
	if err != nil {
		return err
	}
	limit, err := parseLimit(req.query)
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
func (s *Server) listObjects(ctx context.Context, req *request, sel selection, limit int) ([]*watchcache.Object, listMeta, error) {
	opts := generic.ListOptions{Match: sel.match(), Limit: limit, Continue: req.query.Get("continue")}
	if opts.Continue != "" {
		if req.query.Get("resourceVersion") != "" {
			return nil, listMeta{}, apierror.BadRequest("specifying resource version is not allowed when using continue")
		}
	} else {
		rp, err := parseReadPoint(req.query)
		if err != nil {
			return nil, listMeta{}, err
		}
		opts.ReadPoint = rp
	}
	return s.objects.List(ctx, req.res, req.namespace, opts)
}
