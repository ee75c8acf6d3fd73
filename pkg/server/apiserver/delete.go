package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/protobuf"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// deleteOptionsKind describes DeleteOptions bodies for content negotiation.
var deleteOptionsKind = &registry.Resource{Version: "v1", Kind: "DeleteOptions", Typed: true}

// deleteOptions are the parts of DeleteOptions the server acts on.
type deleteOptions struct {
	uid, resourceVersion *string
	dryRun               bool
	propagation          propagation
}

// parseDeleteOptions reads DeleteOptions from the body (JSON or
// protobuf, possibly empty) and the query.
func parseDeleteOptions(w http.ResponseWriter, r *http.Request, req *request) (deleteOptions, error) {
	var opts deleteOptions
	var do metav1.DeleteOptions
	body, err := readBody(w, r)
	if err != nil {
		return opts, err
	}
	if len(body) > 0 {
		bf, err := requestFormat(r.Header.Get("Content-Type"), deleteOptionsKind)
		if err != nil {
			return opts, err
		}
		switch bf {
		case bodyProtobuf:
			_, js, err := protobuf.Default().DecodeToJSON(body)
			if err != nil {
				return opts, apierror.BadRequest("the body is not valid DeleteOptions: %v", err)
			}
			body = js
		case bodyYAML:
			return opts, apierror.BadRequest("DeleteOptions must be JSON or protobuf")
		}
		if err := unmarshalJSON(body, &do); err != nil {
			return opts, apierror.BadRequest("the body is not valid DeleteOptions: %v", err)
		}
	}
	q := req.query
	if v := q.Get("gracePeriodSeconds"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return opts, apierror.BadRequest("invalid gracePeriodSeconds %q", v)
		}
	}
	// orphanDependents is deprecated in favour of propagationPolicy, but
	// clients still send it and kube-apiserver still honours it.
	//lint:ignore SA1019 see above
	orphan := do.OrphanDependents
	switch v := q.Get("orphanDependents"); v {
	case "":
	case "true", "false":
		b := v == "true"
		orphan = &b
	default:
		return opts, apierror.BadRequest("invalid orphanDependents %q", v)
	}
	policy := q.Get("propagationPolicy")
	if do.PropagationPolicy != nil {
		policy = string(*do.PropagationPolicy)
	}
	switch metav1.DeletionPropagation(policy) {
	case "", metav1.DeletePropagationBackground, metav1.DeletePropagationForeground, metav1.DeletePropagationOrphan:
	default:
		return opts, apierror.BadRequest("propagationPolicy must be Orphan, Background or Foreground, not %q", policy)
	}
	if policy != "" && orphan != nil {
		return opts, apierror.Invalid(schema.GroupKind{Kind: "DeleteOptions"}, "", field.ErrorList{
			field.Invalid(field.NewPath("propagationPolicy"), policy, "orphanDependents and propagationPolicy cannot both be set"),
		})
	}
	opts.propagation = propagation{policy: metav1.DeletionPropagation(policy), orphan: orphan}
	dry, err := parseDryRun(req)
	if err != nil {
		return opts, err
	}
	for _, v := range do.DryRun {
		if v != "All" {
			return opts, apierror.BadRequest("dryRun must be All, not %q", v)
		}
		dry = true
	}
	opts.dryRun = dry
	if p := do.Preconditions; p != nil {
		if p.UID != nil {
			s := string(*p.UID)
			opts.uid = &s
		}
		opts.resourceVersion = p.ResourceVersion
	}
	return opts, nil
}

func (s *Server) delete(w http.ResponseWriter, r *http.Request, req *request) error {
	opts, err := parseDeleteOptions(w, r, req)
	if err != nil {
		return err
	}
	if g, ok := req.res.Strategy.(registry.DeleteGuard); ok {
		if err := g.CheckDelete(req.name); err != nil {
			return err
		}
	}
	ctx := r.Context()
	kv, err := s.store.Get(ctx, req.res.Key(req.namespace, req.name))
	if err != nil {
		return err
	}
	out, err := s.deleteStored(ctx, req.res, kv, opts)
	if err != nil {
		return apierror.From(err, req.res.GroupResource(), req.name)
	}
	if out.gone && req.res.Typed && req.res.GroupResource() != namespaceGR {
		// Built-in kinds answer an immediate delete with a Status, as
		// kube-apiserver does; custom resources answer with the object.
		writeSuccess(w, req.res, req.name, string(out.obj.GetUID()))
		return nil
	}
	b, err := servedBytes(out.obj, out.rev)
	if err != nil {
		return apierror.Internal(err)
	}
	return s.writeObject(w, r, req.res, http.StatusOK, b)
}

// deleted is the outcome of deleting one object.
type deleted struct {
	obj  *unstructured.Unstructured
	rev  int64
	gone bool // false: finalizers hold it, deletionTimestamp is set
}

// deleteStored deletes the object in kv: at once without finalizers,
// otherwise by setting deletionTimestamp. It retries on concurrent
// writes, checking the preconditions against each new state.
func (s *Server) deleteStored(ctx context.Context, res *registry.Resource, kv storage.KeyValue, opts deleteOptions) (deleted, error) {
	gr := res.GroupResource()
	for attempt := 0; ; attempt++ {
		u, err := parseObject(kv.Value)
		if err != nil {
			return deleted{}, apierror.Internal(err)
		}
		u.SetResourceVersion(strconv.FormatInt(kv.Revision, 10))
		if opts.uid != nil && *opts.uid != string(u.GetUID()) {
			return deleted{}, apierror.Conflict(gr, u.GetName(), fmt.Sprintf("Precondition failed: UID in precondition: %v, UID in object meta: %v", *opts.uid, u.GetUID()))
		}
		if opts.resourceVersion != nil && *opts.resourceVersion != u.GetResourceVersion() {
			return deleted{}, apierror.Conflict(gr, u.GetName(), fmt.Sprintf("Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", *opts.resourceVersion, u.GetResourceVersion()))
		}
		var out deleted
		fins, changed := opts.propagation.withGCFinalizers(u)
		if changed {
			u.SetFinalizers(fins)
		}
		if held(res, u) {
			if (u.GetDeletionTimestamp() != nil && !changed) || opts.dryRun {
				return deleted{obj: u, rev: kv.Revision}, nil
			}
			if u.GetDeletionTimestamp() == nil {
				if ds, ok := res.Strategy.(registry.DeleteStrategy); ok {
					ds.PrepareForDelete(u.Object)
				}
				now := metav1.NewTime(s.now())
				u.SetDeletionTimestamp(&now)
				zero := int64(0)
				u.SetDeletionGracePeriodSeconds(&zero)
			}
			var val []byte
			if val, err = storedBytes(u); err != nil {
				return deleted{}, apierror.Internal(err)
			}
			out.obj = u
			out.rev, err = s.store.Update(ctx, kv.Key, val, kv.Revision)
		} else {
			if opts.dryRun {
				return deleted{obj: u, rev: kv.Revision, gone: true}, nil
			}
			out.obj, out.gone = u, true
			_, out.rev, err = s.store.Delete(ctx, kv.Key, kv.Revision)
		}
		if errors.Is(err, storage.ErrConflict) && attempt < maxWriteRetries {
			if kv, err = s.store.Get(ctx, kv.Key); err != nil {
				return deleted{}, err
			}
			continue
		}
		if err != nil {
			return deleted{}, err
		}
		return out, nil
	}
}

func (s *Server) deleteCollection(w http.ResponseWriter, r *http.Request, req *request) error {
	opts, err := parseDeleteOptions(w, r, req)
	if err != nil {
		return err
	}
	sel, err := parseSelection(req.query, req.res)
	if err != nil {
		return err
	}
	ctx := r.Context()
	c, err := s.cacheFor(req.res)
	if err != nil {
		return err
	}
	if err := s.cache.WaitFresh(ctx); err != nil {
		return apierror.From(err, req.res.GroupResource(), "")
	}
	// The selection matches objects as this version serves them; the
	// stored objects are deleted.
	match := servedMatch(req.res, sel)
	page := c.List(watchcache.ListOptions{Namespace: nsIf(req), Match: match})
	items := make([]*watchcache.Object, 0, len(page.Items))
	for _, o := range page.Items {
		out, err := s.deleteStored(ctx, req.res, storage.KeyValue{Key: o.Key, Value: o.JSON, Revision: o.Revision}, opts)
		if errors.Is(err, storage.ErrNotFound) {
			continue
		}
		if err != nil {
			return apierror.From(err, req.res.GroupResource(), o.Name)
		}
		b, err := servedBytes(out.obj, out.rev)
		if err != nil {
			return apierror.Internal(err)
		}
		if b, err = servedVersion(req.res, b); err != nil {
			return err
		}
		items = append(items, &watchcache.Object{Key: o.Key, Name: o.Name, Namespace: o.Namespace, APIVersion: req.res.APIVersion(), JSON: b})
	}
	return s.writeList(w, r, req.res, items, listMeta{ResourceVersion: strconv.FormatInt(s.cache.Revision(), 10)})
}
