package generic

import (
	"context"
	"errors"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/server/apierror"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
	"github.com/setpoint-dev/setpoint/pkg/storage"
)

// ApplyOptions are a server-side apply's options.
type ApplyOptions struct {
	Subresource registry.Subresource
	// Manager owns the fields the patch names; required.
	Manager string
	// Force takes fields another manager owns instead of reporting
	// conflicts.
	Force  bool
	DryRun bool
	// Decode checks and normalizes the merged object as a request body
	// is decoded (field validation, the kind's own decoding); nil keeps
	// it as merged.
	Decode func(obj map[string]any) (*unstructured.Unstructured, error)
}

// Apply serves a server-side apply: patch is the manager's whole intent
// for the fields it names, merged into the live object by field
// ownership. Fields another manager owns are conflicts unless Force is
// set. An object that does not exist is created; created says so. The
// object is returned as served.
func (s *Store) Apply(ctx context.Context, res *registry.Resource, ns, name string, patch *unstructured.Unstructured, opts ApplyOptions) (obj []byte, created bool, err error) {
	if opts.Subresource == registry.SubresourceScale {
		if patch, err = scaleApplyPatch(res, patch); err != nil {
			return nil, false, err
		}
	}
	if err := CheckTypeMeta(patch, res); err != nil {
		return nil, false, err
	}
	fm, err := s.fields.get(res, opts.Subresource)
	if err != nil {
		return nil, false, apierror.Internal(err)
	}
	merge := func(live *unstructured.Unstructured) (*unstructured.Unstructured, error) {
		out, err := fm.Apply(live, patch.DeepCopy(), opts.Manager, opts.Force)
		if err != nil {
			return nil, applyError(err)
		}
		u, ok := out.(*unstructured.Unstructured)
		if !ok {
			return nil, apierror.Internal(errors.New("field manager returned a typed object"))
		}
		if opts.Decode == nil {
			return u, nil
		}
		return opts.Decode(u.Object)
	}
	if opts.Subresource == registry.SubresourceNone {
		_, err := s.storage.Get(ctx, res.Key(ns, name))
		if errors.Is(err, storage.ErrNotFound) {
			live := emptyObject(res)
			live.SetName(name)
			if res.Namespaced {
				live.SetNamespace(ns)
			}
			u, err := merge(live)
			if err != nil {
				return nil, false, err
			}
			u.SetName(name)
			u.SetResourceVersion("")
			b, err := s.Create(ctx, res, ns, u, CreateOptions{DryRun: opts.DryRun, applied: true, named: true})
			if se := (*apierror.StatusError)(nil); !errors.As(err, &se) || se.Status.Reason != metav1.StatusReasonAlreadyExists {
				return b, err == nil, err
			}
			// Created meanwhile by someone else: apply to theirs.
		}
	}
	b, err := s.Update(ctx, res, ns, name, func(cur *unstructured.Unstructured) (*unstructured.Unstructured, error) {
		u, err := merge(cur)
		if err != nil {
			return nil, err
		}
		// The patch is applied to the current object, so its
		// resourceVersion is no precondition unless the patch set one.
		if patch.GetResourceVersion() == "" {
			u.SetResourceVersion("")
		}
		return u, nil
	}, UpdateOptions{Subresource: opts.Subresource, DryRun: opts.DryRun, applied: true})
	return b, false, err
}

// applyError turns the field manager's errors into Statuses: conflicts
// come as a ready 409 naming each field and its manager; anything else
// is the patch not fitting the schema.
func applyError(err error) error {
	var as interface{ Status() metav1.Status }
	if errors.As(err, &as) {
		st := as.Status()
		st.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
		return &apierror.StatusError{Status: st}
	}
	return apierror.BadRequest("%v", err)
}

// CheckTypeMeta checks that u is an object of res, filling in a missing
// apiVersion or kind, as kube-apiserver does; another kind, or a version
// of another group, is a 400.
func CheckTypeMeta(u *unstructured.Unstructured, res *registry.Resource) error {
	switch av := u.GetAPIVersion(); av {
	case "":
		u.SetAPIVersion(res.APIVersion())
	case res.APIVersion():
	default:
		gv, err := schema.ParseGroupVersion(av)
		if err != nil || gv.Group != res.Group {
			return apierror.BadRequest("the API version in the data (%s) does not match the expected API version (%s)", av, res.APIVersion())
		}
		// Another served version of the same resource: objects are not
		// converted, so serve it under the URL's version.
		u.SetAPIVersion(res.APIVersion())
	}
	switch k := u.GetKind(); k {
	case "":
		u.SetKind(res.Kind)
	case res.Kind:
	default:
		return apierror.BadRequest("the kind in the data (%s) does not match the expected kind (%s)", k, res.Kind)
	}
	if _, ok := u.Object["metadata"]; ok {
		if _, isMap := u.Object["metadata"].(map[string]any); !isMap {
			return apierror.BadRequest("metadata must be an object")
		}
	}
	return nil
}
