package apiserver

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/server/openapi"
	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

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
		r, err := openapi.ResourceOf(res)
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
