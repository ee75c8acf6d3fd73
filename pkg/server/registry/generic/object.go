package generic

import (
	"strconv"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"k8s.io/apimachinery/pkg/api/validate/content"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
	sigsjson "sigs.k8s.io/json"

	"github.com/setpoint-dev/setpoint/internal/jsonscan"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
)

// unmarshalJSON decodes as kube-apiserver does: keys are case-sensitive
// and integers stay int64. Objects decoded into a new map go through
// jsonscan first, which reads them in two thirds of the decoder's time.
func unmarshalJSON(b []byte, v any) error {
	if m, ok := v.(*map[string]any); ok && *m == nil {
		if obj, ok := jsonscan.DecodeObject(b); ok {
			*m = obj
			return nil
		}
	}
	return sigsjson.UnmarshalCaseSensitivePreserveInts(b, v)
}

// ParseObject reads served or stored JSON back into unstructured form.
func ParseObject(b []byte) (*unstructured.Unstructured, error) {
	var obj map[string]any
	if err := unmarshalJSON(b, &obj); err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: obj}, nil
}

// validateMeta applies the generic metadata rules: name, namespace,
// labels, annotations, finalizers and owner references.
func validateMeta(u *unstructured.Unstructured, res *registry.Resource) field.ErrorList {
	nameFn := apivalidation.NameIsDNSSubdomain
	switch {
	case res.NameIsLabel:
		nameFn = apivalidation.NameIsDNSLabel
	case res.NameIsPathSegment:
		// kube's RBAC names check a generateName as a whole name too.
		nameFn = func(name string, _ bool) []string { return content.IsPathSegmentName(name) }
	}
	var meta metav1.Object = u
	if res.Typed {
		// Decoded through its Go type: its managedFields are well formed.
		meta = metaView{u}
	}
	return apivalidation.ValidateObjectMetaAccessor(meta, res.Namespaced, nameFn, field.NewPath("metadata"))
}

// storedBytes encodes an object for storage: without resourceVersion,
// which is the storage revision and is added when served.
func storedBytes(u *unstructured.Unstructured) ([]byte, error) {
	meta, _ := u.Object["metadata"].(map[string]any)
	rv, had := meta["resourceVersion"]
	delete(meta, "resourceVersion")
	b, err := marshalObject(u.Object)
	if had {
		meta["resourceVersion"] = rv
	}
	return b, err
}

// servedBytes encodes an object as served at revision rev.
func servedBytes(u *unstructured.Unstructured, rev int64) ([]byte, error) {
	u.SetResourceVersion(strconv.FormatInt(rev, 10))
	return marshalObject(u.Object)
}

// servedFromStored is servedBytes for u just stored as stored at rev:
// when u is stored in the form it is served in, the stored bytes take
// the revision without encoding u again.
func servedFromStored(res *registry.Resource, u *unstructured.Unstructured, stored []byte, rev int64) ([]byte, error) {
	if res.Converter == nil {
		if b, ok := withResourceVersion(stored, rev); ok {
			u.SetResourceVersion(strconv.FormatInt(rev, 10))
			return b, nil
		}
	}
	return servedBytes(u, rev)
}

// decoder builds the watch cache's objects for a resource.
func decoder(res *registry.Resource) watchcache.DecodeFunc {
	return func(key string, value []byte, rev int64) (*watchcache.Object, error) {
		var obj map[string]any
		if err := unmarshalJSON(value, &obj); err != nil {
			return nil, err
		}
		res.NormalizeStored(obj)
		u := &unstructured.Unstructured{Object: obj}
		b, err := servedBytes(u, rev)
		if err != nil {
			return nil, err
		}
		return &watchcache.Object{
			Key: key, Namespace: u.GetNamespace(), Name: u.GetName(), Revision: rev, APIVersion: u.GetAPIVersion(),
			Labels: u.GetLabels(), Fields: res.Fields(obj), JSON: b,
		}, nil
	}
}

// emptyObject is an object of res with nothing but its kind.
func emptyObject(res *registry.Resource) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetGroupVersionKind(res.GroupVersionKind())
	return u
}

// AtRevision returns obj, served JSON, with its resourceVersion set to
// rev: an object leaving a watch's selection is reported DELETED as it
// was, at the revision of the change that took it out.
func AtRevision(obj []byte, rev int64) ([]byte, error) {
	u, err := ParseObject(obj)
	if err != nil {
		return nil, err
	}
	return servedBytes(u, rev)
}

// kindOf names res's kind in Invalid answers: a resource kept in
// another's storage (events.k8s.io Events) is named by that one's group,
// as kube-apiserver validates the stored kind.
func kindOf(res *registry.Resource) schema.GroupKind {
	gk := res.GroupVersionKind().GroupKind()
	if !res.SharesStorage.Empty() {
		gk.Group = res.StorageResource().Group
	}
	return gk
}
