package apiserver

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// tooLargeWait is how long a read asking for a revision the cache has not
// reached waits before answering 504, as kube-apiserver does.
const tooLargeWait = 3 * time.Second

func (s *Server) get(w http.ResponseWriter, r *http.Request, req *request) error {
	key := req.res.Key(req.namespace, req.name)
	if rv := req.query.Get("resourceVersion"); rv != "" {
		n, err := parseRV(rv)
		if err != nil {
			return err
		}
		c, err := s.cacheFor(req.res)
		if err != nil {
			return err
		}
		if err := s.waitCache(r.Context(), n); err != nil {
			return err
		}
		o, _ := c.Get(key)
		if o, err = served(req.res, o); err != nil {
			return apierror.Internal(err)
		}
		if o == nil {
			return apierror.NotFound(req.res.GroupResource(), req.name)
		}
		return s.writeResult(w, r, req, http.StatusOK, o.JSON)
	}
	kv, err := s.store.Get(r.Context(), key)
	if err != nil {
		return err
	}
	o, err := s.servedDecoder(req.res)(kv.Key, kv.Value, kv.Revision)
	if err != nil {
		return apierror.Internal(err)
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

// readPoint says where a list reads: the latest state (consistent), any
// state no older than a revision, or exactly one revision.
type readPoint struct {
	consistent bool
	notOlder   int64
	exact      int64
}

func parseReadPoint(q map[string][]string) (readPoint, error) {
	get := func(k string) string {
		if v := q[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	rv, match := get("resourceVersion"), get("resourceVersionMatch")
	if rv == "" {
		if match != "" {
			return readPoint{}, apierror.BadRequest("resourceVersionMatch is forbidden unless resourceVersion is provided")
		}
		return readPoint{consistent: true}, nil
	}
	n, err := parseRV(rv)
	if err != nil {
		return readPoint{}, err
	}
	switch match {
	case "", "NotOlderThan":
		return readPoint{notOlder: n}, nil
	case "Exact":
		if n == 0 {
			return readPoint{}, apierror.BadRequest("resourceVersionMatch %q is forbidden for resourceVersion \"0\"", match)
		}
		return readPoint{exact: n}, nil
	}
	return readPoint{}, apierror.BadRequest("resourceVersionMatch must be NotOlderThan or Exact, not %q", match)
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

func (s *Server) cacheFor(res *registry.Resource) (*watchcache.Cache, error) {
	c, ok := s.cache.Cache(res.StorageResource())
	if !ok {
		return nil, apierror.PathNotFound()
	}
	return c, nil
}

// waitCache waits until the cache has applied revision rev, for at most
// tooLargeWait.
func (s *Server) waitCache(ctx context.Context, rev int64) error {
	if s.cache.Revision() >= rev {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, tooLargeWait)
	defer cancel()
	if err := s.cache.WaitFor(ctx, rev); err != nil {
		return apierror.TooLargeResourceVersion()
	}
	return nil
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

// listObjects reads one page. First pages come from the cache; continued
// pages and exact-revision reads come from storage at the revision the
// listing started at, which the continue token carries.
func (s *Server) listObjects(ctx context.Context, req *request, sel selection, limit int) ([]*watchcache.Object, listMeta, error) {
	prefix := req.res.NamespacePrefix(req.namespace)
	match := servedMatch(req.res, sel)
	if cont := req.query.Get("continue"); cont != "" {
		if req.query.Get("resourceVersion") != "" {
			return nil, listMeta{}, apierror.BadRequest("specifying resource version is not allowed when using continue")
		}
		rev, _, err := storage.DecodeContinue(prefix, cont)
		if err != nil {
			return nil, listMeta{}, err
		}
		return s.listStorage(ctx, req.res, prefix, storage.ListOptions{Revision: rev, Continue: cont}, limit, match)
	}
	rp, err := parseReadPoint(req.query)
	if err != nil {
		return nil, listMeta{}, err
	}
	if rp.exact > 0 {
		return s.listStorage(ctx, req.res, prefix, storage.ListOptions{Revision: rp.exact}, limit, match)
	}
	c, err := s.cacheFor(req.res)
	if err != nil {
		return nil, listMeta{}, err
	}
	if rp.consistent {
		if err := s.cache.WaitFresh(ctx); err != nil {
			return nil, listMeta{}, apierror.From(err, req.res.GroupResource(), "")
		}
	} else if err := s.waitCache(ctx, rp.notOlder); err != nil {
		return nil, listMeta{}, err
	}
	res := c.List(watchcache.ListOptions{Namespace: nsIf(req), Limit: limit, Match: match})
	meta := listMeta{ResourceVersion: strconv.FormatInt(res.Revision, 10)}
	if res.More && len(res.Items) > 0 {
		meta.Continue = storage.EncodeContinue(prefix, res.Items[len(res.Items)-1].Key, res.Revision)
		if match == nil {
			n := res.Remaining
			meta.RemainingItemCount = &n
		}
	}
	items, err := servedList(req.res, res.Items)
	return items, meta, err
}

func nsIf(req *request) string {
	if req.res.Namespaced {
		return req.namespace
	}
	return ""
}

// listStorage reads a page from storage, filling it past objects the
// selection rejects.
func (s *Server) listStorage(ctx context.Context, res *registry.Resource, prefix string, opts storage.ListOptions, limit int, match func(*watchcache.Object) bool) ([]*watchcache.Object, listMeta, error) {
	decode := s.servedDecoder(res)
	var items []*watchcache.Object
	if limit > 0 {
		opts.Limit = int64(limit)
	}
	for {
		page, err := s.store.List(ctx, prefix, opts)
		if err != nil {
			return nil, listMeta{}, err
		}
		rev := page.Revision
		for i, kv := range page.Items {
			o, err := decode(kv.Key, kv.Value, kv.Revision)
			if err != nil {
				return nil, listMeta{}, apierror.Internal(err)
			}
			if match != nil && !match(o) {
				continue
			}
			items = append(items, o)
			if limit > 0 && len(items) == limit && (i < len(page.Items)-1 || page.Continue != "") {
				return items, listMeta{
					ResourceVersion: strconv.FormatInt(rev, 10),
					Continue:        storage.EncodeContinue(prefix, kv.Key, rev),
				}, nil
			}
		}
		if page.Continue == "" {
			return items, listMeta{ResourceVersion: strconv.FormatInt(rev, 10)}, nil
		}
		opts = storage.ListOptions{Revision: rev, Continue: page.Continue, Limit: opts.Limit}
	}
}
