package apiserver

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/registry/generic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
)

// crdGR is the resource whose objects the server turns into served
// resources: the CRD half of the server watches it, as
// apiextensions-apiserver does; the object path does not know it.
var crdGR = schema.GroupResource{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}

// onCacheEvent runs on the watch cache's goroutine after each event, in
// revision order, before the revision is published. CRDs become served
// resources here, and RBAC changes reach the authorizer.
func (s *Server) onCacheEvent(gr schema.GroupResource, ev *watchcache.Event) {
	s.rbacChanged(gr)
	if gr != crdGR {
		return
	}
	name := ev.Object.Name
	if ev.Type == watchcache.Deleted {
		s.unserveCRD(name)
		return
	}
	u, err := generic.ParseObject(ev.Object.Served())
	if err != nil {
		s.log.Error("unreadable CRD", "name", name, "err", err)
		return
	}
	if u.GetDeletionTimestamp() != nil {
		// The CRD cleanup controller deletes its objects; no new ones
		// meanwhile.
		s.terminating.Store(name, true)
	} else {
		s.terminating.Delete(name)
	}
	resources, err := registry.FromCRD(u.Object)
	if err != nil || len(resources) == 0 {
		s.unserveCRD(name)
		return
	}
	// Every version shares the storage version's cache, whose objects
	// are pruned and defaulted by that version's schema: a new schema
	// rebuilds them.
	stored := storageVersion(u, resources)
	c, err := s.cache.Add(context.Background(), stored.GroupResource(), generic.Decoder(stored))
	if err != nil {
		s.log.Error("cannot cache custom resource", "crd", name, "err", err)
		return
	}
	if fp := schemaFingerprint(stored); s.cacheSchemaChanged(name, fp) {
		c.Redecode(generic.Decoder(stored))
	}
	before := s.reg.Owned(name)
	if conflicts := s.reg.SetOwned(name, resources); len(conflicts) > 0 {
		s.log.Warn("custom resource names taken", "crd", name, "resource", conflicts[0].GroupVersionResource().String())
	}
	s.publishOpenAPI(groupVersionsOf(append(before, resources...))...)
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
	s.cacheSchemas.Delete(name)
	before := s.reg.Owned(name)
	defer func() { s.publishOpenAPI(groupVersionsOf(before)...) }()
	s.terminating.Delete(name)
	var gr schema.GroupResource
	if len(before) > 0 {
		gr = before[0].GroupResource()
	}
	s.reg.SetOwned(name, nil)
	if gr.Resource != "" {
		s.cache.Remove(gr)
	}
}

// serveStoredCRDs serves the CRDs found at startup.
func (s *Server) serveStoredCRDs() {
	c, ok := s.cache.Cache(crdGR)
	if !ok {
		return
	}
	for _, o := range c.List(watchcache.ListOptions{}).Items {
		s.onCacheEvent(crdGR, &watchcache.Event{Type: watchcache.Added, Revision: o.Revision, Object: o})
	}
}

// refuseIfTerminating refuses new custom objects while their CRD is being
// deleted, as kube-apiserver does, so cleanup can finish: the store's
// CreateGate.
func (s *Server) refuseIfTerminating(res *registry.Resource) error {
	owner, ok := s.reg.Owner(res.GroupResource())
	if !ok || owner == "" {
		return nil
	}
	if _, t := s.terminating.Load(owner); t {
		return apierror.New(http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed,
			"create not allowed while custom resource definition is terminating")
	}
	return nil
}

// schemaFingerprint identifies what the cache's decoder does to a
// custom resource's objects: its storage version and that version's
// schema.
func schemaFingerprint(res *registry.Resource) string {
	b, _ := json.Marshal(res.Schema)
	return res.Version + "\x00" + string(b)
}

// cacheSchemaChanged records fp as the schema a CRD's cache decodes
// with and reports whether a cache built for another one exists.
func (s *Server) cacheSchemaChanged(crd, fp string) bool {
	prev, had := s.cacheSchemas.Swap(crd, fp)
	return had && prev.(string) != fp
}
