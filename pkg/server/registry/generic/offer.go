package generic

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
)

// offer hands the watch cache u, just stored at rev as stored and served
// as served, so the cache need not decode the stored value again. Only
// resources whose cache holds objects exactly as written qualify: not a
// version kept in another's form (a converter, shared storage), nor a
// custom resource, whose cached objects follow the schema of the moment
// they are decoded. When served was spliced from stored, the cache keeps
// the stored bytes, so that it shares them with a store that keeps what
// it is given (the memory backend) instead of holding a second copy of
// every object.
func (s *Store) offer(res *registry.Resource, u *unstructured.Unstructured, rev int64, stored []byte, spliced bool, served []byte) {
	if s.cache == nil || res.Converter != nil || res.StorageResource() != res.GroupResource() || res.Structural() != nil {
		return
	}
	ns, name := u.GetNamespace(), u.GetName()
	o := &watchcache.Object{
		Key: res.Key(ns, name), Namespace: ns, Name: name, Revision: rev, APIVersion: u.GetAPIVersion(),
		Labels: u.GetLabels(), Fields: res.Fields(u.Object),
	}
	if spliced {
		o.Stored, o.Stamp = stored[:len(stored):len(stored)], stampRevision
	} else {
		o.JSON = served[:len(served):len(served)]
	}
	s.cache.Offer(o)
}

// stampRevision is a watchcache.Object's Stamp for stored bytes the
// revision was spliced into once already.
func stampRevision(stored []byte, rev int64) []byte {
	b, _ := withResourceVersion(stored, rev)
	return b
}
