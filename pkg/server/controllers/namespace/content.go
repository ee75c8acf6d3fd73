package namespace

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/client"
)

// listPage bounds each metadata listing, so a namespace holding a very
// large number of objects is read in pieces.
const listPage = 1000

// contentAPI is what deleting a namespace's content needs of the server.
type contentAPI interface {
	ServerResources(ctx context.Context) ([]client.Resource, error)
	List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error
	Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error
	DeleteAllOf(ctx context.Context, obj client.Object, opts ...client.DeleteAllOfOption) error
}

// kind is one kind of namespaced object to delete.
type kind struct {
	gvk        schema.GroupVersionKind
	gr         schema.GroupResource
	collection bool // the server offers deletecollection
}

// deletableKinds picks, from discovery, the namespaced kinds that can
// be listed and deleted, one version of each group and kind: every
// version of a kind reaches the same objects, and ServerResources lists
// each group's preferred version first.
func deletableKinds(resources []client.Resource) []kind {
	seen := map[schema.GroupKind]bool{}
	var out []kind
	for _, r := range resources {
		if !r.Namespaced || !r.Supports("list", "delete") || strings.Contains(r.GVR.Resource, "/") {
			continue
		}
		gk := r.GVK().GroupKind()
		if seen[gk] {
			continue
		}
		seen[gk] = true
		out = append(out, kind{gvk: r.GVK(), gr: r.GVR.GroupResource(), collection: r.Supports("deletecollection")})
	}
	return out
}

// deleteContent deletes every object of every deletable kind in
// namespace ns and reports what is left.
func deleteContent(ctx context.Context, api contentAPI, ns string) *outcome {
	out := &outcome{remaining: map[schema.GroupResource]int{}, finalizers: map[string]int{}}
	resources, err := api.ServerResources(ctx)
	if err != nil {
		out.discoveryErr = err
		return out
	}
	for _, k := range deletableKinds(resources) {
		left, err := deleteKind(ctx, api, ns, k)
		if err != nil {
			out.deleteErrs = append(out.deleteErrs, fmt.Errorf("%s: %w", k.gr, err))
		}
		for _, o := range left {
			out.remaining[k.gr]++
			for _, f := range o.Finalizers {
				out.finalizers[f]++
			}
		}
	}
	return out
}

// deleteKind deletes the objects of kind k in namespace ns and returns
// those still there afterwards: held by finalizers, or (on servers with
// graceful deletion) still terminating. Kinds with nothing in ns cost one
// list.
func deleteKind(ctx context.Context, api contentAPI, ns string, k kind) ([]metav1.PartialObjectMetadata, error) {
	items, err := listKind(ctx, api, ns, k.gvk)
	if err != nil || len(items) == 0 {
		return items, err
	}
	live := 0
	for _, o := range items {
		if o.DeletionTimestamp == nil {
			live++
		}
	}
	if live == 0 {
		// Everything is already being deleted: only its finalizers can
		// finish it.
		return items, nil
	}
	background := client.PropagationPolicy(metav1.DeletePropagationBackground)
	deleted := false
	if k.collection {
		err := api.DeleteAllOf(ctx, partial(k.gvk, ns, ""), client.InNamespace(ns), background)
		switch {
		case err == nil:
			deleted = true
		case !isMethodNotAllowed(err):
			return items, err
		}
		// A server that lists deletecollection but refuses it gets the
		// objects one by one.
	}
	if !deleted {
		for _, o := range items {
			if o.DeletionTimestamp != nil {
				continue
			}
			err := api.Delete(ctx, partial(k.gvk, ns, o.Name), background, client.Preconditions{UID: &o.UID})
			if err != nil && !client.IsNotFound(err) && !client.IsConflict(err) {
				// A conflict is a new object of the same name, created
				// before the namespace was marked: the next pass takes it.
				return items, err
			}
		}
	}
	return listKind(ctx, api, ns, k.gvk)
}

// listKind lists the metadata of kind gvk in namespace ns, page by page.
func listKind(ctx context.Context, api contentAPI, ns string, gvk schema.GroupVersionKind) ([]metav1.PartialObjectMetadata, error) {
	var items []metav1.PartialObjectMetadata
	cont := ""
	for {
		list := &metav1.PartialObjectMetadataList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		opts := []client.ListOption{client.InNamespace(ns), client.Limit(listPage)}
		if cont != "" {
			opts = append(opts, client.Continue(cont))
		}
		if err := api.List(ctx, list, opts...); err != nil {
			return items, err
		}
		items = append(items, list.Items...)
		if cont = list.Continue; cont == "" {
			return items, nil
		}
	}
}

func partial(gvk schema.GroupVersionKind, ns, name string) *metav1.PartialObjectMetadata {
	o := &metav1.PartialObjectMetadata{}
	o.SetGroupVersionKind(gvk)
	o.Namespace, o.Name = ns, name
	return o
}

// isMethodNotAllowed reports a 405, by reason or, from a server that
// sent none, by code.
func isMethodNotAllowed(err error) bool {
	var se *client.StatusError
	if !errors.As(err, &se) {
		return false
	}
	return se.ErrStatus.Reason == metav1.StatusReasonMethodNotAllowed || se.ErrStatus.Code == http.StatusMethodNotAllowed
}
