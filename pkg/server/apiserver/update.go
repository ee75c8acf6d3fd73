package apiserver

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strconv"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/setpoint-dev/setpoint/pkg/server/crdschema"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// maxWriteRetries bounds the retries of a write without a
// resourceVersion that keeps losing to concurrent writers.
const maxWriteRetries = 32

func (s *Server) update(w http.ResponseWriter, r *http.Request, req *request) error {
	if req.subresource == "scale" {
		return s.updateScale(w, r, req)
	}
	u, warnings, err := s.decodeObject(w, r, req)
	if err != nil {
		return err
	}
	dryRun, err := parseDryRun(req)
	if err != nil {
		return err
	}
	setWarnings(w, warnings)
	return s.writeUpdate(w, r, req, dryRun, func(*unstructured.Unstructured) (*unstructured.Unstructured, error) {
		return u.DeepCopy(), nil
	})
}

// writeUpdate is the shared tail of PUT and PATCH: desired computes the
// requested object from the current one; the update rules, the
// optimistic concurrency check and the write follow. Without a
// resourceVersion in the request, losing a race retries on the new state.
func (s *Server) writeUpdate(w http.ResponseWriter, r *http.Request, req *request, dryRun bool, desired func(cur *unstructured.Unstructured) (*unstructured.Unstructured, error)) error {
	ctx := r.Context()
	res := req.res
	gr := res.GroupResource()
	key := res.Key(req.namespace, req.name)
	for attempt := 0; ; attempt++ {
		kv, err := s.store.Get(ctx, key)
		if err != nil {
			return err
		}
		old, err := parseObject(kv.Value)
		if err != nil {
			return apierror.Internal(err)
		}
		if old.Object, err = res.FromStorage(old.Object); err != nil {
			return apierror.Internal(err)
		}
		old.SetResourceVersion(strconv.FormatInt(kv.Revision, 10))
		u, err := desired(old.DeepCopy())
		if err != nil {
			return err
		}
		if !req.apply {
			u = s.track(res, req.subresource, old, u, managerName(r, req))
		}
		if u.GetName() != req.name {
			return apierror.BadRequest("the name of the object (%s) does not match the name on the URL (%s)", u.GetName(), req.name)
		}
		switch ns := u.GetNamespace(); {
		case !res.Namespaced:
			u.SetNamespace("")
		case ns == "":
			u.SetNamespace(req.namespace)
		case ns != req.namespace:
			return apierror.BadRequest("the namespace of the provided object does not match the namespace sent on the request")
		}
		precondition := u.GetResourceVersion()
		if precondition != "" && precondition != old.GetResourceVersion() {
			return apierror.Conflict(gr, req.name, apierror.StaleObject)
		}
		next, err := s.prepareUpdate(ctx, res, req.subresource, u, old)
		if err != nil {
			return err
		}
		if sameObject(next, old) || dryRun {
			b, err := servedBytes(next, kv.Revision)
			if err != nil {
				return apierror.Internal(err)
			}
			return s.writeResult(w, r, req, http.StatusOK, b)
		}
		var rev int64
		if next.GetDeletionTimestamp() != nil && !held(res, next) {
			// The last finalizer is gone: the object's deletion completes.
			_, rev, err = s.store.Delete(ctx, key, kv.Revision)
		} else {
			var val []byte
			if val, err = s.storable(res, next, req.apply); err != nil {
				return err
			}
			rev, err = s.store.Update(ctx, key, val, kv.Revision)
		}
		if errors.Is(err, storage.ErrConflict) && precondition == "" && attempt < maxWriteRetries {
			continue
		}
		if err != nil {
			return apierror.From(err, gr, req.name)
		}
		b, err := servedBytes(next, rev)
		if err != nil {
			return apierror.Internal(err)
		}
		if err := s.afterWrite(ctx, req, rev); err != nil {
			return err
		}
		return s.writeResult(w, r, req, http.StatusOK, b)
	}
}

// prepareUpdate applies the update rules to the requested object u given
// the stored one: server-owned metadata is kept, the status subresource
// splits .status from the rest, finalizers cannot be added once deletion
// started, and generation counts changes outside metadata (and status).
func (s *Server) prepareUpdate(ctx context.Context, res *registry.Resource, subresource string, u, old *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	var next *unstructured.Unstructured
	switch subresource {
	case "status":
		if ss, ok := res.Strategy.(registry.StatusStrategy); ok {
			next = u
			if errs := ss.PrepareForStatusUpdate(next.Object, runtime.DeepCopyJSON(old.Object)); len(errs) > 0 {
				return nil, apierror.Invalid(res.GroupVersionKind().GroupKind(), next.GetName(), errs)
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
	case "scale":
		// desired changed only the replicas in the current object.
		next = u
	case "finalize":
		// Namespaces only: the one way to change spec.finalizers.
		next = old.DeepCopy()
		fins, found, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "finalizers")
		if found {
			_ = unstructured.SetNestedField(next.Object, runtime.DeepCopyJSONValue(fins), "spec", "finalizers")
		} else {
			unstructured.RemoveNestedField(next.Object, "spec", "finalizers")
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
	if res.Strategy != nil && subresource == "" {
		if errs := res.Strategy.PrepareForUpdate(now, next.Object, old.Object); len(errs) > 0 {
			return nil, apierror.Invalid(res.GroupVersionKind().GroupKind(), next.GetName(), errs)
		}
	}
	if res.TracksGeneration {
		next.SetGeneration(old.GetGeneration())
		if specChanged(res, next, old) {
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
	if subresource != "finalize" {
		errs = append(errs, res.Validate(ctx, next.Object, old.Object)...)
	}
	if len(errs) > 0 {
		return nil, apierror.Invalid(res.GroupVersionKind().GroupKind(), next.GetName(), errs)
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
