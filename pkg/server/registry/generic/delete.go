package generic

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// DeleteOptions are the parts of metav1.DeleteOptions the store acts on.
type DeleteOptions struct {
	// UID and ResourceVersion are preconditions, when set.
	UID, ResourceVersion *string
	DryRun               bool
	// GracePeriodSeconds is the grace period the request asks for; nil
	// leaves it to the kind (registry.GracefulDeleteStrategy).
	GracePeriodSeconds *int64
	// PropagationPolicy and OrphanDependents (legacy) say what happens
	// to the object's dependents; at most one is set.
	PropagationPolicy metav1.DeletionPropagation
	OrphanDependents  *bool
}

// Deleted is the outcome of deleting one object.
type Deleted struct {
	// Object is the object as served: its last state when Gone, else
	// with deletionTimestamp set.
	Object *unstructured.Unstructured
	JSON   []byte
	// Gone: the object was deleted; otherwise finalizers hold it.
	Gone bool
}

// Delete deletes one object: at once without finalizers, otherwise by
// setting deletionTimestamp and leaving the rest to whoever holds it.
func (s *Store) Delete(ctx context.Context, res *registry.Resource, ns, name string, opts DeleteOptions) (Deleted, error) {
	gr := res.GroupResource()
	if g, ok := res.Strategy.(registry.DeleteGuard); ok {
		if err := g.CheckDelete(name); err != nil {
			return Deleted{}, apierror.From(err, gr, name)
		}
	}
	kv, err := s.storage.Get(ctx, res.Key(ns, name))
	if err != nil {
		return Deleted{}, apierror.From(err, gr, name)
	}
	out, err := s.deleteStored(ctx, res, kv, opts)
	if err != nil {
		return Deleted{}, apierror.From(err, gr, name)
	}
	return out, nil
}

// deleteStored deletes the object in kv. It retries on concurrent
// writes, checking the preconditions against each new state.
func (s *Store) deleteStored(ctx context.Context, res *registry.Resource, kv storage.KeyValue, opts DeleteOptions) (Deleted, error) {
	gr := res.GroupResource()
	prop := propagation{policy: opts.PropagationPolicy, orphan: opts.OrphanDependents}
	_, prop.orphanByDefault = res.Strategy.(registry.OrphanStrategy)
	for attempt := 0; ; attempt++ {
		u, err := ParseObject(kv.Value)
		if err != nil {
			return Deleted{}, apierror.Internal(err)
		}
		u.SetResourceVersion(strconv.FormatInt(kv.Revision, 10))
		if opts.UID != nil && *opts.UID != string(u.GetUID()) {
			return Deleted{}, apierror.Conflict(gr, u.GetName(), fmt.Sprintf("Precondition failed: UID in precondition: %v, UID in object meta: %v", *opts.UID, u.GetUID()))
		}
		if opts.ResourceVersion != nil && *opts.ResourceVersion != u.GetResourceVersion() {
			return Deleted{}, apierror.Conflict(gr, u.GetName(), fmt.Sprintf("Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", *opts.ResourceVersion, u.GetResourceVersion()))
		}
		var out Deleted
		var rev int64
		starting := u.GetDeletionTimestamp() == nil
		grace := s.graceful(res, u, opts.GracePeriodSeconds)
		if grace == gracePending {
			// A graceful deletion under way only shortens; the delete
			// changes nothing else, its finalizers included.
			return served(u, kv.Revision, false)
		}
		fins, changed := prop.withGCFinalizers(u)
		if changed {
			u.SetFinalizers(fins)
		}
		if grace == graceStarted || held(res, u) {
			if grace != graceStarted && (!starting && !changed || opts.DryRun) {
				return served(u, kv.Revision, false)
			}
			if starting {
				if ds, ok := res.Strategy.(registry.DeleteStrategy); ok {
					ds.PrepareForDelete(u.Object)
				}
			}
			if u.GetDeletionTimestamp() == nil {
				now := metav1.NewTime(s.now())
				u.SetDeletionTimestamp(&now)
				zero := int64(0)
				u.SetDeletionGracePeriodSeconds(&zero)
			}
			if opts.DryRun {
				return served(u, kv.Revision, false)
			}
			var val []byte
			if val, err = storedBytes(u); err != nil {
				return Deleted{}, apierror.Internal(err)
			}
			out.Object = u
			rev, err = s.storage.Update(ctx, kv.Key, val, kv.Revision)
		} else {
			if opts.DryRun {
				return served(u, kv.Revision, true)
			}
			out.Object, out.Gone = u, true
			_, rev, err = s.storage.Delete(ctx, kv.Key, kv.Revision)
		}
		if errors.Is(err, storage.ErrConflict) && attempt < maxWriteRetries {
			if kv, err = s.storage.Get(ctx, kv.Key); err != nil {
				return Deleted{}, err
			}
			continue
		}
		if err != nil {
			return Deleted{}, err
		}
		if err := s.afterWrite(ctx, res, u.GetName(), rev); err != nil {
			return Deleted{}, err
		}
		return served(out.Object, rev, out.Gone)
	}
}

// served is the Deleted answer for u at revision rev.
func served(u *unstructured.Unstructured, rev int64, gone bool) (Deleted, error) {
	b, err := servedBytes(u, rev)
	if err != nil {
		return Deleted{}, apierror.Internal(err)
	}
	return Deleted{Object: u, JSON: b, Gone: gone}, nil
}

// DeleteCollection deletes every object of res in ns (every namespace
// when empty) that match selects, as Delete deletes one, and returns
// them as res serves them with the revision the cache had reached.
func (s *Store) DeleteCollection(ctx context.Context, res *registry.Resource, ns string, match func(*watchcache.Object) bool, opts DeleteOptions) ([]*watchcache.Object, int64, error) {
	c, err := s.cacheFor(res)
	if err != nil {
		return nil, 0, err
	}
	if err := s.waitFresh(ctx, res.GroupResource()); err != nil {
		return nil, 0, err
	}
	// The selection matches objects as this version serves them; the
	// stored objects are deleted.
	page := c.List(watchcache.ListOptions{Namespace: namespaceOf(res, ns), Match: servedMatch(res, match)})
	items := make([]*watchcache.Object, 0, len(page.Items))
	for _, o := range page.Items {
		out, err := s.deleteStored(ctx, res, storage.KeyValue{Key: o.Key, Value: o.Served(), Revision: o.Revision}, opts)
		if errors.Is(err, storage.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, 0, apierror.From(err, res.GroupResource(), o.Name)
		}
		b, err := ServedVersion(res, out.JSON)
		if err != nil {
			return nil, 0, err
		}
		items = append(items, &watchcache.Object{Key: o.Key, Name: o.Name, Namespace: o.Namespace, APIVersion: res.APIVersion(), JSON: b})
	}
	return items, s.cache.Revision(), nil
}

// namespaceOf is the namespace a read of res is confined to.
func namespaceOf(res *registry.Resource, ns string) string {
	if res.Namespaced {
		return ns
	}
	return ""
}
