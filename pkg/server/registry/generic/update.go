package generic

import (
	"context"
	"errors"
	"reflect"
	"strconv"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/crdschema"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// UpdateOptions are an update's options.
type UpdateOptions struct {
	Subresource registry.Subresource
	DryRun      bool
	// FieldManager is who the changed fields are recorded under.
	FieldManager string
	// applied: the update comes from a server-side apply, which records
	// its managed fields itself.
	applied bool
}

// Desired computes the object an update asks for from the current one
// (a deep copy, with its resourceVersion set): the body of a PUT, a
// patch applied, a Scale's replicas written. A resourceVersion left in
// what it returns is a precondition. It may run more than once when a
// write without a precondition loses a race.
type Desired func(cur *unstructured.Unstructured) (*unstructured.Unstructured, error)

// Update writes the object desired computes from the stored one, under
// the update rules of res and the subresource, and returns it as served.
// An update that changes nothing is not written. Without a
// resourceVersion precondition, losing a race to another writer retries
// on the new state.
func (s *Store) Update(ctx context.Context, res *registry.Resource, ns, name string, desired Desired, opts UpdateOptions) ([]byte, error) {
	gr := res.GroupResource()
	key := res.Key(ns, name)
	for attempt := 0; ; attempt++ {
		kv, err := s.storage.Get(ctx, key)
		if err != nil {
			return nil, apierror.From(err, gr, name)
		}
		old, err := ParseObject(kv.Value)
		if err != nil {
			return nil, apierror.Internal(err)
		}
		if old.Object, err = res.FromStorage(old.Object); err != nil {
			return nil, apierror.Internal(err)
		}
		old.SetResourceVersion(strconv.FormatInt(kv.Revision, 10))
		u, err := desired(old.DeepCopy())
		if err != nil {
			return nil, err
		}
		if !opts.applied {
			u = s.track(res, opts.Subresource, old, u, opts.FieldManager)
		}
		if u.GetName() != name {
			return nil, apierror.BadRequest("the name of the object (%s) does not match the name on the URL (%s)", u.GetName(), name)
		}
		switch got := u.GetNamespace(); {
		case !res.Namespaced:
			u.SetNamespace("")
		case got == "":
			u.SetNamespace(ns)
		case got != ns:
			return nil, apierror.BadRequest("the namespace of the provided object does not match the namespace sent on the request")
		}
		if opts.Subresource == registry.SubresourceNone {
			if err := s.admit(ctx, res, true, admitted(u, old, opts.applied), old); err != nil {
				return nil, err
			}
		}
		precondition := u.GetResourceVersion()
		if precondition != "" && precondition != old.GetResourceVersion() {
			return nil, apierror.Conflict(gr, name, apierror.StaleObject)
		}
		next, err := s.prepareUpdate(ctx, res, opts.Subresource, u, old)
		if err != nil {
			return nil, err
		}
		if err := s.admitValidated(ctx, res, opts.Subresource, next, old); err != nil {
			return nil, err
		}
		b, retry, err := s.write(ctx, res, key, name, kv.Revision, next, old, precondition == "" && attempt < maxWriteRetries, opts)
		if retry {
			continue
		}
		return b, err
	}
}

// write stores next, the update of old read at revision read, and
// returns it as served; retry says the write lost a race to another
// writer and mayRetry allowed another attempt.
func (s *Store) write(ctx context.Context, res *registry.Resource, key, name string, read int64, next, old *unstructured.Unstructured, mayRetry bool, opts UpdateOptions) (b []byte, retry bool, err error) {
	if opts.Subresource == registry.SubresourceNone {
		release, err := s.allocate(ctx, res, next, old)
		if err != nil {
			return nil, false, err
		}
		defer release()
	}
	if sameObject(next, old) || opts.DryRun {
		b, err := servedBytes(next, read)
		if err != nil {
			return nil, false, apierror.Internal(err)
		}
		return b, false, nil
	}
	var rev int64
	var val []byte // what was stored; nil when the object was deleted
	if next.GetDeletionTimestamp() != nil && !held(res, next) {
		// The last finalizer is gone: the object's deletion completes.
		_, rev, err = s.storage.Delete(ctx, key, read)
	} else {
		if val, err = s.storable(res, next, opts.applied); err != nil {
			return nil, false, err
		}
		withdraw := s.offer(res, next, val)
		if rev, err = s.storage.Update(ctx, key, val, read); err != nil {
			withdraw()
		}
	}
	if errors.Is(err, storage.ErrConflict) && mayRetry {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, apierror.From(err, res.GroupResource(), name)
	}
	if val != nil {
		b, err = servedFromStored(res, next, val, rev)
	} else {
		b, err = servedBytes(next, rev)
	}
	if err != nil {
		return nil, false, apierror.Internal(err)
	}
	if err := s.afterWrite(ctx, res, name, rev); err != nil {
		return nil, false, err
	}
	return b, false, nil
}

// prepareUpdate applies the update rules to the requested object u given
// the stored one: server-owned metadata is kept, the status subresource
// splits .status from the rest, finalizers cannot be added once deletion
// started, and generation counts changes outside metadata (and status).
func (s *Store) prepareUpdate(ctx context.Context, res *registry.Resource, subresource registry.Subresource, u, old *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	var next *unstructured.Unstructured
	switch subresource {
	case registry.SubresourceStatus:
		if ss, ok := res.Strategy.(registry.StatusStrategy); ok {
			next = u
			if errs := ss.PrepareForStatusUpdate(next.Object, runtime.DeepCopyJSON(old.Object)); len(errs) > 0 {
				return nil, apierror.Invalid(kindOf(res), next.GetName(), errs)
			}
			break
		}
		next = old.DeepCopy()
		if st, ok := u.Object["status"]; ok {
			next.Object["status"] = st
		} else {
			delete(next.Object, "status")
		}
		keepManagedFields(next, u)
	case registry.SubresourceEphemeralContainers:
		es, ok := res.Strategy.(registry.EphemeralContainersStrategy)
		if !ok {
			return nil, apierror.PathNotFound()
		}
		obj, errs := es.PrepareForEphemeralContainersUpdate(u.Object, runtime.DeepCopyJSON(old.Object))
		if len(errs) > 0 {
			return nil, apierror.Invalid(kindOf(res), u.GetName(), errs)
		}
		next = &unstructured.Unstructured{Object: obj}
		keepManagedFields(next, u)
	case registry.SubresourceApproval:
		as, ok := res.Strategy.(registry.ApprovalStrategy)
		if !ok {
			return nil, apierror.PathNotFound()
		}
		next = u
		if errs := as.PrepareForApprovalUpdate(next.Object, runtime.DeepCopyJSON(old.Object)); len(errs) > 0 {
			return nil, apierror.Invalid(kindOf(res), next.GetName(), errs)
		}
	case registry.SubresourceScale, registry.SubresourceBinding:
		// desired changed only what the subresource writes (replicas;
		// the node and the scheduled condition) in the current object.
		next = u
	case registry.SubresourceFinalize:
		fs, ok := res.Strategy.(registry.FinalizeStrategy)
		if !ok {
			return nil, apierror.PathNotFound()
		}
		next = &unstructured.Unstructured{Object: fs.PrepareForFinalize(u.Object, old.Object)}
		if fv, ok := res.Strategy.(registry.FinalizeValidator); ok {
			if errs := fv.ValidateFinalize(next.Object); len(errs) > 0 {
				return nil, apierror.Invalid(kindOf(res), next.GetName(), errs)
			}
		}
	default:
		next = u
		if res.StatusSubresource {
			if st, ok := old.Object["status"]; ok {
				next.Object["status"] = runtime.DeepCopyJSONValue(st)
			} else {
				delete(next.Object, "status")
			}
		}
		if uid := next.GetUID(); uid == "" {
			next.SetUID(old.GetUID())
		}
	}
	meta, _ := next.Object["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		next.Object["metadata"] = meta
	}
	oldMeta, _ := old.Object["metadata"].(map[string]any)
	for _, k := range []string{"creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds"} {
		if v, ok := oldMeta[k]; ok {
			meta[k] = v
		} else {
			delete(meta, k)
		}
	}
	delete(meta, "selfLink")
	next.SetResourceVersion(old.GetResourceVersion())
	now := s.now()
	if res.Strategy != nil && subresource == registry.SubresourceNone {
		if errs := res.Strategy.PrepareForUpdate(now, next.Object, old.Object); len(errs) > 0 {
			return nil, apierror.Invalid(kindOf(res), next.GetName(), errs)
		}
	}
	if res.TracksGeneration {
		next.SetGeneration(old.GetGeneration())
		// A binding assigns, it does not change what was asked for:
		// kube writes it past the strategy, generation untouched.
		if subresource != registry.SubresourceBinding && (specChanged(res, next, old) || bumpsGeneration(res, subresource, next, old)) {
			next.SetGeneration(old.GetGeneration() + 1)
		}
	} else if g, ok := oldMeta["generation"]; ok {
		meta["generation"] = g
	} else {
		delete(meta, "generation")
	}
	errs := validateMeta(next, res)
	errs = append(errs, apivalidation.ValidateObjectMetaAccessorUpdate(next, old, field.NewPath("metadata"))...)
	if old.GetDeletionTimestamp() != nil {
		errs = append(errs, apivalidation.ValidateNoNewFinalizers(next.GetFinalizers(), old.GetFinalizers(), field.NewPath("metadata", "finalizers"))...)
	}
	if subresource != registry.SubresourceFinalize {
		errs = append(errs, res.Validate(ctx, next.Object, old.Object)...)
	}
	if len(errs) > 0 {
		return nil, apierror.Invalid(kindOf(res), next.GetName(), errs)
	}
	return next, nil
}

// specChanged reports a change outside metadata, ignoring status when the
// resource has a status subresource.
func specChanged(res *registry.Resource, a, b *unstructured.Unstructured) bool {
	for k, v := range a.Object {
		if k == "metadata" || (k == "status" && res.StatusSubresource) {
			continue
		}
		if !reflect.DeepEqual(v, b.Object[k]) {
			return true
		}
	}
	for k := range b.Object {
		if k == "metadata" || (k == "status" && res.StatusSubresource) {
			continue
		}
		if _, ok := a.Object[k]; !ok {
			return true
		}
	}
	return false
}

// bumpsGeneration asks the kind's GenerationStrategy, for writes to the
// main resource, whether a change the spec does not show is a new
// generation (a Deployment's annotations).
func bumpsGeneration(res *registry.Resource, subresource registry.Subresource, next, old *unstructured.Unstructured) bool {
	gs, ok := res.Strategy.(registry.GenerationStrategy)
	return ok && subresource == registry.SubresourceNone && gs.BumpsGeneration(next.Object, old.Object)
}

// sameObject reports whether an update would store what is stored; such
// a write is skipped and answered with the current object, so no-op
// updates do not wake every watcher. Comparing the maps costs a fraction
// of encoding both, and numbers compare as their JSON encodings do.
func sameObject(a, b *unstructured.Unstructured) bool {
	return crdschema.EqualJSON(a.Object, b.Object)
}

// held reports whether an object must stay while its deletion is under
// way: it has finalizers, or its kind holds it for more (a namespace's
// spec finalizers).
func held(res *registry.Resource, u *unstructured.Unstructured) bool {
	if len(u.GetFinalizers()) > 0 {
		return true
	}
	ds, ok := res.Strategy.(registry.DeleteStrategy)
	return ok && ds.HoldsDeletion(u.Object)
}

// keepManagedFields carries the managed fields recorded for a
// subresource write (in u) over to the object stored (next).
func keepManagedFields(next, u *unstructured.Unstructured) {
	um, _ := u.Object["metadata"].(map[string]any)
	nm, _ := next.Object["metadata"].(map[string]any)
	if nm == nil {
		return
	}
	if mf, ok := um["managedFields"]; ok {
		nm["managedFields"] = mf
	} else {
		delete(nm, "managedFields")
	}
}
