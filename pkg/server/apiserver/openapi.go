package apiserver

import (
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/server/openapi"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

// builtinDefinitions caches the OpenAPI definitions of built-in kinds:
// reflecting over their Go types is the same work for every server.
var builtinDefinitions sync.Map // schema.GroupVersionKind -> openapi.Resource

// openAPIResource describes res for the OpenAPI documents and for the
// field manager's type converter.
func openAPIResource(res *registry.Resource) (openapi.Resource, error) {
	out := openapi.Resource{
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
			c := cached.(openapi.Resource)
			out.Root, out.Definitions = c.Root, c.Definitions
			return out, nil
		}
		obj, err := registry.Scheme().New(gvk)
		if err != nil {
			return out, fmt.Errorf("apiserver: %s has no Go type: %w", gvk, err)
		}
		if out.Root, out.Definitions, err = openapi.ForType(gvk, obj); err != nil {
			return out, err
		}
		builtinDefinitions.Store(gvk, out)
		return out, nil
	}
	var err error
	out.Root, out.Definitions, err = openapi.ForCRD(res.GroupVersionKind(), res.Schema)
	return out, err
}

// publishOpenAPI rebuilds what the OpenAPI documents say about the given
// group-versions from the registry; the documents themselves are
// assembled when next asked for.
func (s *Server) publishOpenAPI(gvs ...schema.GroupVersion) {
	want := map[schema.GroupVersion][]openapi.Resource{}
	for _, gv := range gvs {
		want[gv] = nil
	}
	for _, res := range s.reg.Resources() {
		gv := res.GroupVersion()
		if _, ok := want[gv]; !ok || !res.Stored() {
			continue
		}
		r, err := openAPIResource(res)
		if err != nil {
			s.log.Warn("resource left out of OpenAPI", "resource", res.GroupVersionResource().String(), "err", err)
			continue
		}
		want[gv] = append(want[gv], r)
	}
	for gv, rs := range want {
		s.openapi.SetGroupVersion(gv, rs)
	}
}

// groupVersionsOf lists the group-versions of resources, without repeats.
func groupVersionsOf(resources []*registry.Resource) []schema.GroupVersion {
	var out []schema.GroupVersion
	seen := map[schema.GroupVersion]bool{}
	for _, r := range resources {
		if gv := r.GroupVersion(); !seen[gv] {
			seen[gv] = true
			out = append(out, gv)
		}
	}
	return out
}
