package generic

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
)

// allocate runs a kind's AllocateStrategy for u (old is the stored
// object on update, nil on create). Allocations are serialized, and each
// waits until every earlier write is in the watch cache, whose objects
// are what is taken; the returned release must run once u's write has
// been stored (or given up), so the next allocation sees it.
func (s *Store) allocate(ctx context.Context, res *registry.Resource, u, old *unstructured.Unstructured) (release func(), err error) {
	as, ok := res.Strategy.(registry.AllocateStrategy)
	if !ok {
		return func() {}, nil
	}
	s.allocMu.Lock()
	defer func() {
		if err != nil {
			s.allocMu.Unlock()
		}
	}()
	c, err := s.cacheFor(res)
	if err != nil {
		return nil, err
	}
	if err := s.waitFresh(ctx, res.GroupResource()); err != nil {
		return nil, err
	}
	self := res.Key(u.GetNamespace(), u.GetName())
	var taken []map[string]any
	for _, o := range c.List(watchcache.ListOptions{}).Items {
		if o.Key == self {
			continue
		}
		obj, err := ParseObject(o.Served())
		if err != nil {
			return nil, apierror.Internal(err)
		}
		taken = append(taken, obj.Object)
	}
	var oldObj map[string]any
	if old != nil {
		oldObj = old.Object
	}
	if errs := as.Allocate(u.Object, oldObj, taken); len(errs) > 0 {
		return nil, apierror.Invalid(kindOf(res), u.GetName(), errs)
	}
	return s.allocMu.Unlock, nil
}
