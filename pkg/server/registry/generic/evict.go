package generic

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

// evictRetries bounds the retries of an eviction whose object changed
// under it, as kube's EvictionsRetry.
const evictRetries = 20

// Evict serves a create on an object's eviction subresource, as
// kube-apiserver's EvictionREST: an object that is not running is
// deleted at once; otherwise the kind's EvictStrategy charges the
// eviction to the budget covering it, or refuses it, and the object is
// marked and deleted as a normal delete with opts. The eviction's name
// must be the object's.
func (s *Store) Evict(ctx context.Context, res *registry.Resource, ns, name, evictionName string, opts DeleteOptions) error {
	es, ok := res.Strategy.(registry.EvictStrategy)
	if !ok {
		return apierror.PathNotFound()
	}
	if evictionName != name {
		return apierror.BadRequest("name in URL does not match name in Eviction object")
	}
	budgetRes, ok := s.reg.Get(es.BudgetResource())
	if !ok {
		return apierror.Internal(fmt.Errorf("budget resource %v is not served", es.BudgetResource()))
	}
	pinned := opts.ResourceVersion != nil
	var cur *unstructured.Unstructured
	for attempt := 0; ; attempt++ {
		o, err := s.Get(ctx, res, ns, name, GetOptions{})
		if err != nil {
			return err
		}
		if cur, err = ParseObject(o.Served()); err != nil {
			return apierror.Internal(err)
		}
		free, pin := es.EvictsFreely(cur.Object)
		if !free {
			break
		}
		del := opts
		if pin && !pinned {
			rv := cur.GetResourceVersion()
			del.ResourceVersion = &rv
		}
		err = s.markAndDelete(ctx, res, es, ns, name, del)
		if !pinned && attempt < evictRetries && isConflict(err) {
			continue
		}
		return err
	}
	budgets := &budgetStore{s: s, res: budgetRes}
	pin, budget, err := es.ChargeBudgets(ctx, s.now(), cur.Object, budgets, opts.DryRun)
	if err != nil {
		return apierror.From(err, budgetRes.GroupResource(), budget)
	}
	del := opts
	if pin {
		rv := cur.GetResourceVersion()
		del.ResourceVersion = &rv
	}
	err = s.markAndDelete(ctx, res, es, ns, name, del)
	if isConflict(err) && pin && !pinned {
		// The pod changed since the budget let it go unhealthy: it
		// may have become ready, and the budget must be consulted again.
		return apierror.From(registry.BudgetInProgress(budget), budgetRes.GroupResource(), budget)
	}
	return err
}

// markAndDelete marks the object evicted through its status, unless
// the request is a dry run, then deletes it with opts. Preconditions in
// opts are checked on the mark, and a resourceVersion precondition
// moves to the marked object.
func (s *Store) markAndDelete(ctx context.Context, res *registry.Resource, es registry.EvictStrategy, ns, name string, opts DeleteOptions) error {
	if !opts.DryRun {
		gr := schema.GroupResource{Group: res.Group, Resource: res.Kind}
		b, err := s.Update(ctx, res, ns, name, func(cur *unstructured.Unstructured) (*unstructured.Unstructured, error) {
			if uid := opts.UID; uid != nil && *uid != "" && *uid != string(cur.GetUID()) {
				return nil, apierror.Conflict(gr, name, fmt.Sprintf("the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *uid, cur.GetUID()))
			}
			if rv := opts.ResourceVersion; rv != nil && *rv != "" && *rv != cur.GetResourceVersion() {
				return nil, apierror.Conflict(gr, name, fmt.Sprintf("the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified", *rv, cur.GetResourceVersion()))
			}
			es.MarkEvicted(s.now(), cur.Object)
			// No precondition of its own: a lost race reruns this on
			// the new state, where the preconditions are checked again.
			cur.SetResourceVersion("")
			return cur, nil
		}, UpdateOptions{Subresource: registry.SubresourceStatus})
		if err != nil {
			return err
		}
		if opts.ResourceVersion != nil {
			u, err := ParseObject(b)
			if err != nil {
				return apierror.Internal(err)
			}
			rv := u.GetResourceVersion()
			opts.ResourceVersion = &rv
		}
	}
	_, err := s.Delete(ctx, res, ns, name, opts)
	return err
}

// isConflict reports whether err is a 409 Conflict.
func isConflict(err error) bool {
	var se *apierror.StatusError
	return errors.As(err, &se) && se.Status.Code == 409
}

// budgetStore is registry.Budgets over the budget resource of a store.
type budgetStore struct {
	s   *Store
	res *registry.Resource
}

func (b *budgetStore) List(ctx context.Context, ns string) ([]map[string]any, error) {
	objs, _, err := b.s.List(ctx, b.res, ns, ListOptions{ReadPoint: ReadPoint{Consistent: true}})
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, 0, len(objs))
	for _, o := range objs {
		u, err := ParseObject(o.Served())
		if err != nil {
			return nil, err
		}
		out = append(out, u.Object)
	}
	return out, nil
}

func (b *budgetStore) Get(ctx context.Context, ns, name string) (map[string]any, error) {
	o, err := b.s.Get(ctx, b.res, ns, name, GetOptions{})
	if err != nil {
		return nil, err
	}
	u, err := ParseObject(o.Served())
	if err != nil {
		return nil, err
	}
	return u.Object, nil
}

// UpdateStatus writes the budget through its status subresource, with
// its resourceVersion as the precondition; losing it is ErrConflict.
func (b *budgetStore) UpdateStatus(ctx context.Context, budget map[string]any) error {
	u := &unstructured.Unstructured{Object: budget}
	_, err := b.s.Update(ctx, b.res, u.GetNamespace(), u.GetName(), func(*unstructured.Unstructured) (*unstructured.Unstructured, error) {
		return u, nil
	}, UpdateOptions{Subresource: registry.SubresourceStatus})
	if isConflict(err) {
		return fmt.Errorf("%w: %v", registry.ErrConflict, err)
	}
	return err
}

var _ registry.Budgets = (*budgetStore)(nil)
