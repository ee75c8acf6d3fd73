package client

import (
	"context"
	"fmt"
	"net/url"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// target is where a request for an object or list goes and how it
// travels.
type target struct {
	flavor     flavor
	gvk        schema.GroupVersionKind // the object's kind; a list's item kind
	listGVK    schema.GroupVersionKind // a list's own kind
	resource   schema.GroupVersionResource
	namespaced bool
	proto      bool
}

// targetOf resolves obj (a list when list is set) to its resource.
func (c *Client) targetOf(ctx context.Context, obj runtime.Object, list bool) (target, error) {
	f, gvk, listGVK, err := c.kindOf(obj, list)
	if err != nil {
		return target{}, err
	}
	t, err := c.targetFor(ctx, f, gvk)
	if err != nil {
		return target{}, err
	}
	t.listGVK = listGVK
	t.proto = c.protobufFor(obj, f, gvk)
	return t, nil
}

// targetFor resolves a kind to its resource through the mapper.
func (c *Client) targetFor(ctx context.Context, f flavor, gvk schema.GroupVersionKind) (target, error) {
	m, err := meta.ToRESTMapperWithContext(c.mapper).RESTMappingWithContext(ctx, gvk.GroupKind(), gvk.Version)
	if err != nil {
		// A *meta.NoKindMatchError as is, for meta.IsNoMatchError.
		return target{}, err
	}
	return target{
		flavor:     f,
		gvk:        gvk,
		resource:   m.Resource,
		namespaced: m.Scope.Name() == meta.RESTScopeNameNamespace,
	}, nil
}

// path is the URL path of the resource's collection (name empty) or of
// one object, with an optional subresource. Namespaces only apply to
// namespaced resources; an empty one means all namespaces.
func (t *target) path(namespace, name, subresource string) string {
	p := "/api/" + t.resource.Version
	if t.resource.Group != "" {
		p = "/apis/" + t.resource.Group + "/" + t.resource.Version
	}
	if t.namespaced && namespace != "" {
		p += "/namespaces/" + url.PathEscape(namespace)
	}
	p += "/" + t.resource.Resource
	if name != "" {
		p += "/" + url.PathEscape(name)
		if subresource != "" {
			p += "/" + subresource
		}
	}
	return p
}

// objectPath is the path of one existing object, checked for the name
// and namespace it needs.
func (t *target) objectPath(namespace, name, subresource string) (string, error) {
	if name == "" {
		return "", ErrMissingName
	}
	if t.namespaced && namespace == "" {
		return "", fmt.Errorf("%w: %s %q", ErrMissingNamespace, t.gvk.Kind, name)
	}
	return t.path(namespace, name, subresource), nil
}

// accept is the Accept header for reading this target.
func (t *target) accept(list bool) string { return accept(t.flavor, t.proto, list) }
