package garbagecollector

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
)

// objects is the API the workers read and write through: the server
// itself, never a cache, since deciding on stale state deletes the
// wrong things. The manager's API reader and client have it.
type objects interface {
	Get(ctx context.Context, key types.NamespacedName, obj client.Object) error
	Patch(ctx context.Context, obj client.Object, patchType types.PatchType, data []byte, opts ...client.WriteOption) error
	Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error
}

// scopes tells namespaced kinds from cluster-scoped ones; a RESTMapper
// does.
type scopes interface {
	RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error)
}

// conflictRetries bounds the immediate retries of a patch that lost a
// race; past them the item goes back to its queue with backoff.
const conflictRetries = 3

// metadataOf is a metadata-only object naming id, for requests.
func metadataOf(id objectRef) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: id.APIVersion, Kind: id.Kind},
		ObjectMeta: metav1.ObjectMeta{Namespace: id.Namespace, Name: id.Name},
	}
}

// namespaced reports whether the kind of id lives in namespaces.
func namespaced(m scopes, id objectRef) (bool, error) {
	gv, err := schema.ParseGroupVersion(id.APIVersion)
	if err != nil {
		return false, fmt.Errorf("garbagecollector: apiVersion of %s: %w", id, err)
	}
	mapping, err := m.RESTMapping(schema.GroupKind{Group: gv.Group, Kind: id.Kind}, gv.Version)
	if err != nil {
		return false, err
	}
	return mapping.Scope.Name() == meta.RESTScopeNameNamespace, nil
}

// getLatest reads id's metadata from the server.
func getLatest(ctx context.Context, api objects, id objectRef) (*metav1.PartialObjectMetadata, error) {
	obj := metadataOf(id)
	if err := api.Get(ctx, types.NamespacedName{Namespace: id.Namespace, Name: id.Name}, obj); err != nil {
		return nil, err
	}
	return obj, nil
}

// deleteObject deletes id with policy, only if it is still that
// incarnation (uid) in the state it was judged in (resourceVersion).
// When that state moved on without touching the ownerReferences, the
// judgement holds: it deletes on the uid alone, so that an object
// written often is not starved.
func deleteObject(ctx context.Context, api objects, id objectRef, rv string, owners []metav1.OwnerReference, policy metav1.DeletionPropagation) error {
	uid := id.UID
	pre := client.Preconditions{UID: &uid}
	if rv != "" {
		pre.ResourceVersion = &rv
	}
	err := api.Delete(ctx, metadataOf(id), pre, client.PropagationPolicy(policy))
	if client.IsConflict(err) && rv != "" {
		live, gerr := getLatest(ctx, api, id)
		switch {
		case client.IsNotFound(gerr):
			return nil
		case gerr == nil && live.UID == id.UID && live.ResourceVersion != rv &&
			equality.Semantic.DeepEqual(live.OwnerReferences, owners):
			pre.ResourceVersion = nil
			err = api.Delete(ctx, metadataOf(id), pre, client.PropagationPolicy(policy))
		}
	}
	if client.IsNotFound(err) {
		return nil
	}
	return err
}

// patchMetadata rewrites part of id's metadata with edit, which says
// whether it changed anything, and returns the object as it left it (nil
// if it wrote nothing). The merge patch names the resourceVersion edit
// saw, so the server refuses it (409) if anything wrote the object
// since; then it reads and tries again. An object gone, or re-created
// under another uid, needs nothing.
func patchMetadata(ctx context.Context, api objects, id objectRef, edit func(*metav1.ObjectMeta) (map[string]any, bool)) (*metav1.PartialObjectMetadata, error) {
	var err error
	for range conflictRetries {
		var live *metav1.PartialObjectMetadata
		live, err = getLatest(ctx, api, id)
		if client.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if live.UID != id.UID {
			return nil, nil
		}
		fields, changed := edit(&live.ObjectMeta)
		if !changed {
			return nil, nil
		}
		fields["resourceVersion"] = live.ResourceVersion
		body, jerr := json.Marshal(map[string]any{"metadata": fields})
		if jerr != nil {
			return nil, jerr
		}
		out := metadataOf(id)
		err = api.Patch(ctx, out, types.MergePatchType, body)
		switch {
		case client.IsNotFound(err):
			return nil, nil
		case err == nil:
			return out, nil
		case !client.IsConflict(err):
			return nil, err
		}
	}
	return nil, err
}

// listOrNull is a list for a merge patch: an empty one is null, which
// removes the field instead of storing an empty list.
func listOrNull[T any](s []T) any {
	if len(s) == 0 {
		return nil
	}
	return s
}

// removeOwners takes the references to owners off id.
func removeOwners(ctx context.Context, api objects, id objectRef, owners ...types.UID) error {
	_, err := patchMetadata(ctx, api, id, func(m *metav1.ObjectMeta) (map[string]any, bool) {
		kept := slices.DeleteFunc(slices.Clone(m.OwnerReferences), func(ref metav1.OwnerReference) bool {
			return slices.Contains(owners, ref.UID)
		})
		if len(kept) == len(m.OwnerReferences) {
			return nil, false
		}
		return map[string]any{"ownerReferences": listOrNull(kept)}, true
	})
	return err
}

// unblockOwners makes id's references to owners stop blocking their
// foreground deletion, and returns id as it left it (nil if unchanged).
func unblockOwners(ctx context.Context, api objects, id objectRef, owners ...types.UID) (*metav1.PartialObjectMetadata, error) {
	return patchMetadata(ctx, api, id, func(m *metav1.ObjectMeta) (map[string]any, bool) {
		refs := slices.Clone(m.OwnerReferences)
		changed := false
		for i, ref := range refs {
			if slices.Contains(owners, ref.UID) && blocks(ref) {
				no := false
				refs[i].BlockOwnerDeletion = &no
				changed = true
			}
		}
		return map[string]any{"ownerReferences": refs}, changed
	})
}

// removeFinalizer takes finalizer name off id; when it is the last one
// of an object being deleted, the server deletes it.
func removeFinalizer(ctx context.Context, api objects, id objectRef, name string) error {
	_, err := patchMetadata(ctx, api, id, func(m *metav1.ObjectMeta) (map[string]any, bool) {
		if !slices.Contains(m.Finalizers, name) {
			return nil, false
		}
		kept := slices.DeleteFunc(slices.Clone(m.Finalizers), func(f string) bool { return f == name })
		return map[string]any{"finalizers": listOrNull(kept)}, true
	})
	return err
}
