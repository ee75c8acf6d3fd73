package generic

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
)

// offer hands the watch cache u before it is stored as stored, so that
// the cache takes it for the write's event instead of decoding the stored
// value again. Only resources whose cache holds objects exactly as written
// qualify: not a version kept in another's form (a converter, shared
// storage), nor a custom resource, whose cached objects follow the schema
// of the moment they are decoded; and only values the revision can be
// spliced into. The cache keeps the stored bytes, so that it shares them
// with a store that keeps what it is given (the memory backend) instead of
// holding a second copy of every object. The caller calls withdraw if the
// write fails.
func (s *Store) offer(res *registry.Resource, u *unstructured.Unstructured, stored []byte) (withdraw func()) {
	if s.cache == nil || res.Converter != nil || res.StorageResource() != res.GroupResource() || res.Structural() != nil {
		return func() {}
	}
	if _, _, _, ok := resourceVersionSlot(stored); !ok {
		return func() {}
	}
	ns, name := u.GetNamespace(), u.GetName()
	return s.cache.Offer(&watchcache.Object{
		Key: res.Key(ns, name), Namespace: ns, Name: name, APIVersion: u.GetAPIVersion(),
		Labels: u.GetLabels(), Fields: res.Fields(u.Object),
		Stored: stored[:len(stored):len(stored)], Stamp: stampRevision,
	})
}

// stampRevision is a watchcache.Object's Stamp for stored bytes the
// revision was spliced into once already.
func stampRevision(stored []byte, rev int64) []byte {
	b, _ := withResourceVersion(stored, rev)
	return b
}
