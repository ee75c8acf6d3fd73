package client

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

// ListerWatcher lists and watches one kind for a cache's reflector.
// Options pass through as they are (resourceVersion, match, limit,
// continue, timeoutSeconds, allowWatchBookmarks, sendInitialEvents), with
// the selectors the ListerWatcher was made with added to the caller's.
type ListerWatcher interface {
	List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// ListerWatcher returns a ListerWatcher for kind gvk in namespace (empty
// for all namespaces or a cluster-scoped kind). Lists are the typed list
// kind when the scheme has it, an *unstructured.UnstructuredList
// otherwise; watch events carry the matching item type.
//
// The kind is resolved on each call, not here, so a cache can start
// before its CRD exists: its List fails with a no-match error until
// discovery lists the kind, and the reflector's retries find it.
func (c *Client) ListerWatcher(gvk schema.GroupVersionKind, namespace string, opts ...ListOption) (ListerWatcher, error) {
	f := flavorUnstructured
	if c.scheme.Recognizes(gvk) && c.scheme.Recognizes(listKind(gvk)) {
		f = flavorTyped
	}
	return c.listerWatcher(gvk, namespace, f, opts)
}

// MetadataListerWatcher is ListerWatcher for metadata only: lists are
// *metav1.PartialObjectMetadataList and events carry
// *metav1.PartialObjectMetadata, labelled with gvk. A cache of these
// costs a fraction of a full one for kinds whose content it never reads.
func (c *Client) MetadataListerWatcher(gvk schema.GroupVersionKind, namespace string, opts ...ListOption) (ListerWatcher, error) {
	return c.listerWatcher(gvk, namespace, flavorMetadata, opts)
}

func (c *Client) listerWatcher(gvk schema.GroupVersionKind, namespace string, f flavor, opts []ListOption) (ListerWatcher, error) {
	if gvk.Kind == "" || gvk.Version == "" {
		return nil, fmt.Errorf("%w: %s", ErrMissingKind, gvk)
	}
	base := listOptionsOf(opts)
	if namespace != "" {
		base.Namespace = namespace
	}
	return &listerWatcher{c: c, gvk: gvk, flavor: f, base: base}, nil
}

func listKind(gvk schema.GroupVersionKind) schema.GroupVersionKind {
	return gvk.GroupVersion().WithKind(gvk.Kind + "List")
}

type listerWatcher struct {
	c      *Client
	gvk    schema.GroupVersionKind
	flavor flavor
	base   ListOptions
}

func (lw *listerWatcher) List(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	list, err := lw.newList()
	if err != nil {
		return nil, err
	}
	if err := lw.c.list(ctx, list, lw.options(opts)); err != nil {
		return nil, err
	}
	return list, nil
}

func (lw *listerWatcher) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	list, err := lw.newList()
	if err != nil {
		return nil, err
	}
	return lw.c.watchList(ctx, list, lw.options(opts))
}

// options adds the ListerWatcher's own selectors to the caller's.
func (lw *listerWatcher) options(opts metav1.ListOptions) ListOptions {
	o := ListOptions{Namespace: lw.base.Namespace, ListOptions: opts}
	o.LabelSelector = and(lw.base.LabelSelector, opts.LabelSelector)
	o.FieldSelector = and(lw.base.FieldSelector, opts.FieldSelector)
	return o
}

func (lw *listerWatcher) newList() (ObjectList, error) {
	lk := listKind(lw.gvk)
	switch lw.flavor {
	case flavorMetadata:
		l := &metav1.PartialObjectMetadataList{}
		l.SetGroupVersionKind(lk)
		return l, nil
	case flavorTyped:
		obj, err := lw.c.scheme.New(lk)
		if err != nil {
			return nil, fmt.Errorf("client: %w", err)
		}
		l, ok := obj.(ObjectList)
		if !ok {
			return nil, fmt.Errorf("client: %T is not a list", obj)
		}
		return l, nil
	}
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(lk)
	return l, nil
}
