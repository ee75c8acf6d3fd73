package generic

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
)

// offer hands the watch cache u, just stored at rev and served as b, so
// the cache need not decode the stored value again. Only resources whose
// cache holds objects exactly as written qualify: not a version kept in
// another's form (a converter, shared storage), nor a custom resource,
// whose cached objects follow the schema of the moment they are decoded.
func (s *Store) offer(res *registry.Resource, u *unstructured.Unstructured, rev int64, b []byte) {
	if s.cache == nil || res.Converter != nil || res.StorageResource() != res.GroupResource() || res.Structural() != nil {
		return
	}
	ns, name := u.GetNamespace(), u.GetName()
	s.cache.Offer(&watchcache.Object{
		Key: res.Key(ns, name), Namespace: ns, Name: name, Revision: rev, APIVersion: u.GetAPIVersion(),
		Labels: u.GetLabels(), Fields: res.Fields(u.Object), JSON: b[:len(b):len(b)],
	})
}
