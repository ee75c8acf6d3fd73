package generic

import (
	"context"
	"strconv"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// GetOptions say where a get reads: storage, the latest state, unless
// Cached, which reads the watch cache once it has reached NotOlder (a
// get with a resourceVersion).
type GetOptions struct {
	Cached   bool
	NotOlder int64
}

// Get returns one object as res serves it.
func (s *Store) Get(ctx context.Context, res *registry.Resource, ns, name string, opts GetOptions) (*watchcache.Object, error) {
	key := res.Key(ns, name)
	if opts.Cached {
		c, err := s.cacheFor(res)
		if err != nil {
			return nil, err
		}
		if err := s.waitCache(ctx, opts.NotOlder); err != nil {
			return nil, err
		}
		o, _ := c.Get(key)
		if o, err = Served(res, o); err != nil {
			return nil, apierror.Internal(err)
		}
		if o == nil {
			return nil, apierror.NotFound(res.GroupResource(), name)
		}
		return o, nil
	}
	kv, err := s.storage.Get(ctx, key)
	if err != nil {
		return nil, apierror.From(err, res.GroupResource(), name)
	}
	o, err := servedDecoder(res)(kv.Key, kv.Value, kv.Revision)
	if err != nil {
		return nil, apierror.Internal(err)
	}
	return o, nil
}

// ReadPoint says where a read is served from: the latest state
// (Consistent), any state no older than a revision (NotOlder), or
// exactly one revision (Exact).
type ReadPoint struct {
	Consistent bool
	NotOlder   int64
	Exact      int64
}

// ListOptions select one page of a list.
type ListOptions struct {
	ReadPoint
	// Match selects objects as res serves them; nil selects every one.
	Match func(*watchcache.Object) bool
	// Limit is the page size; 0 is no limit.
	Limit int
	// Continue is the token of the page before; it carries the revision
	// the listing started at.
	Continue string
}

// ListMeta is a page's list metadata.
type ListMeta struct {
	ResourceVersion    string `json:"resourceVersion"`
	Continue           string `json:"continue,omitempty"`
	RemainingItemCount *int64 `json:"remainingItemCount,omitempty"`
}

// List reads one page of res's objects in ns (every namespace when
// empty). First pages come from the cache; continued pages too, as the
// objects were at the revision the listing started at, while the cache's
// event log reaches back to it; otherwise from storage at that revision,
// as exact-revision reads do.
func (s *Store) List(ctx context.Context, res *registry.Resource, ns string, opts ListOptions) ([]*watchcache.Object, ListMeta, error) {
	prefix := res.NamespacePrefix(ns)
	match := servedMatch(res, opts.Match)
	if opts.Continue != "" {
		rev, after, err := storage.DecodeContinue(prefix, opts.Continue)
		if err != nil {
			return nil, ListMeta{}, apierror.From(err, res.GroupResource(), "")
		}
		cont := storage.ListOptions{Revision: rev, Continue: opts.Continue}
		if c, err := s.cacheFor(res); err == nil {
			// The token expires with storage's history, as
			// kube-apiserver's does: a listing storage could no longer
			// continue is 410 Gone from the cache too. Reading one
			// item tells.
			probe := cont
			probe.Limit = 1
			if _, err := s.storage.List(ctx, prefix, probe); err != nil {
				return nil, ListMeta{}, apierror.From(err, res.GroupResource(), "")
			}
			if page, ok := c.ListAt(rev, watchcache.ListOptions{Namespace: namespaceOf(res, ns), After: after, Limit: opts.Limit, Match: match}); ok {
				return servedPage(res, prefix, page, match)
			}
		}
		return s.listStorage(ctx, res, prefix, cont, opts.Limit, match)
	}
	if opts.Exact > 0 {
		return s.listStorage(ctx, res, prefix, storage.ListOptions{Revision: opts.Exact}, opts.Limit, match)
	}
	c, err := s.cacheFor(res)
	if err != nil {
		return nil, ListMeta{}, err
	}
	limit := opts.Limit
	if opts.Consistent {
		if err := s.waitFresh(ctx, res.GroupResource()); err != nil {
			return nil, ListMeta{}, err
		}
	} else {
		if err := s.waitCache(ctx, opts.NotOlder); err != nil {
			return nil, ListMeta{}, err
		}
		if opts.NotOlder == 0 {
			// resourceVersion=0 reads whatever the cache holds, whole:
			// kube-apiserver's watch cache ignores the limit there, so
			// an informer's first list is one pass, not a paged walk.
			limit = 0
		}
	}
	page := c.List(watchcache.ListOptions{Namespace: namespaceOf(res, ns), Limit: limit, Match: match})
	return servedPage(res, prefix, page, match)
}

// servedPage is a page of the cache as res serves it.
func servedPage(res *registry.Resource, prefix string, page watchcache.ListResult, match func(*watchcache.Object) bool) ([]*watchcache.Object, ListMeta, error) {
	meta := ListMeta{ResourceVersion: strconv.FormatInt(page.Revision, 10)}
	if page.More && len(page.Items) > 0 {
		meta.Continue = storage.EncodeContinue(prefix, page.Items[len(page.Items)-1].Key, page.Revision)
		if match == nil {
			n := page.Remaining
			meta.RemainingItemCount = &n
		}
	}
	items, err := servedList(res, page.Items)
	return items, meta, err
}

// listStorage reads a page from storage, filling it past objects the
// selection rejects.
func (s *Store) listStorage(ctx context.Context, res *registry.Resource, prefix string, opts storage.ListOptions, limit int, match func(*watchcache.Object) bool) ([]*watchcache.Object, ListMeta, error) {
	decode := servedDecoder(res)
	var items []*watchcache.Object
	if limit > 0 {
		opts.Limit = int64(limit)
	}
	for {
		page, err := s.storage.List(ctx, prefix, opts)
		if err != nil {
			return nil, ListMeta{}, apierror.From(err, res.GroupResource(), "")
		}
		rev := page.Revision
		for i, kv := range page.Items {
			o, err := decode(kv.Key, kv.Value, kv.Revision)
			if err != nil {
				return nil, ListMeta{}, apierror.Internal(err)
			}
			if match != nil && !match(o) {
				continue
			}
			items = append(items, o)
			if limit > 0 && len(items) == limit && (i < len(page.Items)-1 || page.Continue != "") {
				return items, ListMeta{
					ResourceVersion: strconv.FormatInt(rev, 10),
					Continue:        storage.EncodeContinue(prefix, kv.Key, rev),
				}, nil
			}
		}
		if page.Continue == "" {
			return items, ListMeta{ResourceVersion: strconv.FormatInt(rev, 10)}, nil
		}
		opts = storage.ListOptions{Revision: rev, Continue: page.Continue, Limit: opts.Limit}
	}
}

// WatchOptions say where a watch starts: with the current state first
// (Initial, at a ReadPoint), or with the events after a revision.
type WatchOptions struct {
	ReadPoint
	Initial bool
	After   int64
}

// Watch subscribes to the changes of res's objects in ns (every
// namespace when empty), in the form the cache keeps them; the caller
// converts them for res (ServedEvent) and filters them, and must Stop
// the watcher. A revision older than the cache keeps is an
// *ExpiredError, which a watch reports in its stream rather than as its
// answer.
func (s *Store) Watch(ctx context.Context, res *registry.Resource, ns string, opts WatchOptions) (*watchcache.Watcher, error) {
	c, err := s.cacheFor(res)
	if err != nil {
		return nil, err
	}
	switch {
	case opts.Consistent:
		if err := s.waitFresh(ctx, res.GroupResource()); err != nil {
			return nil, err
		}
	case opts.Initial:
		if err := s.waitCache(ctx, opts.NotOlder); err != nil {
			return nil, err
		}
	default:
		if err := s.waitCache(ctx, opts.After); err != nil {
			return nil, err
		}
	}
	w, err := c.Watch(watchcache.WatchOptions{Namespace: namespaceOf(res, ns), Initial: opts.Initial, After: opts.After})
	if err != nil {
		return nil, &WatchError{Err: err, Requested: opts.After, Oldest: c.Oldest()}
	}
	return w, nil
}

// WatchError is a watch that could not start once its answer began:
// the stream reports it as one ERROR event. Err is watchcache.ErrExpired
// when the requested revision is older than the cache keeps.
type WatchError struct {
	Err               error
	Requested, Oldest int64
}

func (e *WatchError) Error() string { return e.Err.Error() }
func (e *WatchError) Unwrap() error { return e.Err }
