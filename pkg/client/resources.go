package client

import (
	"context"
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Resource is one resource a server serves, as discovery lists it.
type Resource struct {
	GVR        schema.GroupVersionResource
	Kind       string
	Namespaced bool
	// Verbs are what the resource supports: get, list, watch, create,
	// update, patch, delete, deletecollection.
	Verbs []string
}

// Supports reports whether the resource supports every one of verbs.
func (r Resource) Supports(verbs ...string) bool {
	for _, v := range verbs {
		if !slices.Contains(r.Verbs, v) {
			return false
		}
	}
	return true
}

// GVK is the resource's kind.
func (r Resource) GVK() schema.GroupVersionKind { return r.GVR.GroupVersion().WithKind(r.Kind) }

// ServerResources asks discovery, now, for every resource the server
// serves (subresources left out), each group's preferred version first.
// Controllers that act on every kind (namespace cleanup, garbage
// collection) call it again when CRDs change.
func (c *Client) ServerResources(ctx context.Context) ([]Resource, error) {
	res, err := c.discover(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Resource, len(res))
	for i, r := range res {
		out[i] = Resource{GVR: r.gvr, Kind: r.kind, Namespaced: r.namespaced, Verbs: append([]string(nil), r.verbs...)}
	}
	return out, nil
}
