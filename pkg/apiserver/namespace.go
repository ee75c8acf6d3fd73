package apiserver

import (
	"context"
	"errors"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/apiserver/watchcache"
	"github.com/setpoint-dev/setpoint/pkg/registry"
	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// cleanupNamespaces deletes the contents of terminating namespaces and
// releases each namespace once it is empty. It reports whether any
// namespace is still waiting (for objects with finalizers).
func (s *Server) cleanupNamespaces(ctx context.Context) (pending bool, err error) {
	c, ok := s.cache.Cache(namespaceGR)
	if !ok {
		return false, nil
	}
	nsRes, ok := s.namespaces()
	if !ok {
		return false, nil
	}
	for _, o := range c.List(watchcache.ListOptions{}).Items {
		u, err := parseObject(o.JSON)
		if err != nil || u.GetDeletionTimestamp() == nil {
			continue
		}
		empty, err := s.deleteNamespaceContents(ctx, u.GetName())
		if err != nil {
			return true, err
		}
		if !empty {
			pending = true
			continue
		}
		err = s.mutate(ctx, nsRes, "", u.GetName(), func(ns *unstructured.Unstructured) error {
			fins, _, _ := unstructured.NestedStringSlice(ns.Object, "spec", "finalizers")
			fins = slices.DeleteFunc(fins, func(f string) bool { return f == registry.NamespaceFinalizer })
			if len(fins) == 0 {
				unstructured.RemoveNestedField(ns.Object, "spec", "finalizers")
				return nil
			}
			return unstructured.SetNestedStringSlice(ns.Object, fins, "spec", "finalizers")
		})
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return true, err
		}
	}
	return pending, nil
}

// deleteNamespaceContents deletes every object in namespace ns and says
// whether none is left.
func (s *Server) deleteNamespaceContents(ctx context.Context, ns string) (bool, error) {
	empty := true
	seen := map[schema.GroupResource]bool{}
	for _, res := range s.reg.Resources() {
		gr := res.GroupResource()
		if !res.Namespaced || seen[gr] {
			continue
		}
		seen[gr] = true
		prefix := res.NamespacePrefix(ns)
		page, err := s.store.List(ctx, prefix, storage.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, kv := range page.Items {
			out, err := s.deleteStored(ctx, res, kv, deleteOptions{})
			if errors.Is(err, storage.ErrNotFound) {
				continue
			}
			if err != nil {
				return false, err
			}
			if !out.gone {
				empty = false
			}
		}
	}
	return empty, nil
}
