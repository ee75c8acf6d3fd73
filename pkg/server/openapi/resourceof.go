package openapi

import (
	"fmt"
	"sync"

	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

// builtinDefinitions caches the OpenAPI definitions of built-in kinds:
// reflecting over their Go types is the same work for every server.
var builtinDefinitions sync.Map // schema.GroupVersionKind -> Resource

// ResourceOf describes res for the OpenAPI documents and for the
// field manager's type converter.
func ResourceOf(res *registry.Resource) (Resource, error) {
	out := Resource{
		GVK: res.GroupVersionKind(), ListKind: res.ListKind, Plural: res.Plural,
		Namespaced: res.Namespaced, StrategicMerge: res.Typed,
	}
	if res.StatusSubresource {
		out.Subresources = append(out.Subresources, "status")
	}
	if res.Scale != nil {
		out.Subresources = append(out.Subresources, "scale")
	}
	if res.Typed {
		gvk := res.GroupVersionKind()
		if cached, ok := builtinDefinitions.Load(gvk); ok {
			c := cached.(Resource)
			out.Root, out.Definitions = c.Root, c.Definitions
			return out, nil
		}
		obj, err := registry.Scheme().New(gvk)
		if err != nil {
			return out, fmt.Errorf("openapi: %s has no Go type: %w", gvk, err)
		}
		if out.Root, out.Definitions, err = ForType(gvk, obj); err != nil {
			return out, err
		}
		builtinDefinitions.Store(gvk, out)
		return out, nil
	}
	var err error
	out.Root, out.Definitions, err = ForCRD(res.GroupVersionKind(), res.Schema)
	return out, err
}
