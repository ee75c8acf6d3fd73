package apiserver

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/apiserver/watchcache"
	"github.com/setpoint-dev/setpoint/pkg/registry"
	"github.com/setpoint-dev/setpoint/pkg/storage"
)

var (
	crdGR       = schema.GroupResource{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}
	namespaceGR = schema.GroupResource{Resource: "namespaces"}
)

func (s *Server) namespaces() (*registry.Resource, bool) {
	return s.reg.Get(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"})
}

// afterWrite runs once a write is stored, before it is answered. A CRD
// write waits until the cache has applied it, which is when its
// resources are served (onCacheEvent), so "create CRD, then create a
// custom object" works without polling.
func (s *Server) afterWrite(ctx context.Context, req *request, rev int64) error {
	if req.res.GroupResource() != crdGR {
		return nil
	}
	if err := s.cache.WaitFor(ctx, rev); err != nil {
		return toStatus(err, crdGR, req.name)
	}
	return nil
}

// onCacheEvent runs on the watch cache's goroutine after each event, in
// revision order, before the revision is published. CRDs become served
// resources here.
func (s *Server) onCacheEvent(gr schema.GroupResource, ev *watchcache.Event) {
	if gr == namespaceGR && ev.Type != storage.Deleted && bytes.Contains(ev.Object.JSON, []byte(`"deletionTimestamp"`)) {
		s.wakeCleanup()
	}
	if gr != crdGR {
		return
	}
	name := ev.Object.Name
	if ev.Type == storage.Deleted {
		s.unserveCRD(name)
		return
	}
	u, err := parseObject(ev.Object.JSON)
	if err != nil {
		s.log.Error("unreadable CRD", "name", name, "err", err)
		return
	}
	if u.GetDeletionTimestamp() != nil {
		s.terminating.Store(name, true)
		s.wakeCleanup()
	} else {
		s.terminating.Delete(name)
	}
	resources, err := registry.FromCRD(u.Object)
	if err != nil || len(resources) == 0 {
		s.unserveCRD(name)
		return
	}
	// Every version shares the storage version's cache.
	if _, err := s.cache.Add(context.Background(), resources[0].GroupResource(), s.decoder(storageVersion(u, resources))); err != nil {
		s.log.Error("cannot cache custom resource", "crd", name, "err", err)
		return
	}
	if conflicts := s.reg.SetOwned(name, resources); len(conflicts) > 0 {
		s.log.Warn("custom resource names taken", "crd", name, "resource", conflicts[0].GroupVersionResource().String())
	}
}

func storageVersion(u *unstructured.Unstructured, resources []*registry.Resource) *registry.Resource {
	versions, _, _ := unstructured.NestedSlice(u.Object, "spec", "versions")
	for _, v := range versions {
		vm, _ := v.(map[string]any)
		if vm["storage"] == true {
			for _, r := range resources {
				if r.Version == vm["name"] {
					return r
				}
			}
		}
	}
	return resources[0]
}

func (s *Server) unserveCRD(name string) {
	s.terminating.Delete(name)
	var gr schema.GroupResource
	for _, r := range s.reg.Resources() {
		if owner, _ := s.reg.Owner(r.GroupResource()); owner == name {
			gr = r.GroupResource()
			break
		}
	}
	s.reg.SetOwned(name, nil)
	if gr.Resource != "" {
		s.cache.Remove(gr)
	}
}

func (s *Server) wakeCleanup() {
	select {
	case s.cleanupWake <- struct{}{}:
	default:
	}
}

// runCleanup finishes deletions the server owns: the objects of CRDs and
// of namespaces being deleted are deleted, then the CRD's cleanup
// finalizer or the namespace's spec finalizer is released. Objects with
// finalizers of their own are marked deleted and waited for, as
// kube-apiserver's controllers do.
func (s *Server) runCleanup(ctx context.Context) {
	s.wakeCleanup()
	retry := time.NewTimer(time.Hour)
	defer retry.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.cleanupWake:
		case <-retry.C:
		}
		crdsPending, err := s.cleanupCRDs(ctx)
		if err != nil && ctx.Err() == nil {
			s.log.Warn("custom resource cleanup failed", "err", err)
		}
		nsPending, nsErr := s.cleanupNamespaces(ctx)
		if nsErr != nil && ctx.Err() == nil {
			s.log.Warn("namespace cleanup failed", "err", nsErr)
		}
		if crdsPending || nsPending || err != nil || nsErr != nil {
			retry.Reset(time.Second)
		}
	}
}

func (s *Server) cleanupCRDs(ctx context.Context) (pending bool, err error) {
	c, ok := s.cache.Cache(crdGR)
	if !ok {
		return false, nil
	}
	for _, o := range c.List(watchcache.ListOptions{}).Items {
		u, err := parseObject(o.JSON)
		if err != nil || u.GetDeletionTimestamp() == nil {
			continue
		}
		done, err := s.deleteCustomObjects(ctx, u)
		if err != nil {
			return true, err
		}
		if !done {
			pending = true
			continue
		}
		if err := s.releaseCRD(ctx, u.GetName()); err != nil {
			return true, err
		}
	}
	return pending, nil
}

// deleteCustomObjects deletes every object of a CRD's resource and says
// whether none is left.
func (s *Server) deleteCustomObjects(ctx context.Context, crd *unstructured.Unstructured) (bool, error) {
	resources, err := registry.FromCRD(crd.Object)
	if err != nil || len(resources) == 0 {
		return true, nil
	}
	res := resources[0]
	page, err := s.store.List(ctx, res.Prefix(), storage.ListOptions{})
	if err != nil {
		return false, err
	}
	for _, kv := range page.Items {
		if _, err := s.deleteStored(ctx, res, kv, deleteOptions{}); err != nil && !errors.Is(err, storage.ErrNotFound) && !errors.Is(err, storage.ErrConflict) {
			return false, err
		}
	}
	if len(page.Items) == 0 {
		return true, nil
	}
	page, err = s.store.List(ctx, res.Prefix(), storage.ListOptions{Limit: 1})
	return err == nil && len(page.Items) == 0, err
}

// releaseCRD removes the cleanup finalizer; with no other finalizer the
// CRD is then deleted.
func (s *Server) releaseCRD(ctx context.Context, name string) error {
	res, ok := s.reg.Get(schema.GroupVersionResource{Group: crdGR.Group, Version: "v1", Resource: crdGR.Resource})
	if !ok {
		return nil
	}
	return s.mutate(ctx, res, "", name, func(u *unstructured.Unstructured) error {
		var keep []string
		for _, f := range u.GetFinalizers() {
			if f != registry.CRDCleanupFinalizer {
				keep = append(keep, f)
			}
		}
		u.SetFinalizers(keep)
		return nil
	})
}

// serveStoredCRDs serves the CRDs found at startup.
func (s *Server) serveStoredCRDs() {
	c, ok := s.cache.Cache(crdGR)
	if !ok {
		return
	}
	for _, o := range c.List(watchcache.ListOptions{}).Items {
		s.onCacheEvent(crdGR, &watchcache.Event{Type: storage.Added, Revision: o.Revision, Object: o})
	}
}

// refuseIfTerminating refuses new custom objects while their CRD is being
// deleted, as kube-apiserver does, so cleanup can finish.
func (s *Server) refuseIfTerminating(gr schema.GroupResource) error {
	owner, ok := s.reg.Owner(gr)
	if !ok || owner == "" {
		return nil
	}
	if _, t := s.terminating.Load(owner); t {
		return newStatus(http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed,
			"create not allowed while custom resource definition is terminating")
	}
	return nil
}
