package filters

import (
	"net/http/httptest"
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/server/authorizer"
)

func TestAttributes(t *testing.T) {
	type want struct {
		verb, group, version, ns, resource, sub, name string
		resourceRequest                               bool
	}
	tests := []struct {
		method, url string
		want        want
	}{
		{"GET", "/api/v1/namespaces", want{"list", "", "v1", "", "namespaces", "", "", true}},
		{"GET", "/api/v1/namespaces/other", want{"get", "", "v1", "other", "namespaces", "", "other", true}},
		{"GET", "/api/v1/namespaces/other/status", want{"get", "", "v1", "other", "namespaces", "status", "other", true}},
		{"PUT", "/api/v1/namespaces/other/finalize", want{"update", "", "v1", "other", "namespaces", "finalize", "other", true}},
		{"GET", "/api/v1/namespaces/other/pods", want{"list", "", "v1", "other", "pods", "", "", true}},
		{"GET", "/api/v1/namespaces/other/pods/foo", want{"get", "", "v1", "other", "pods", "", "foo", true}},
		{"HEAD", "/api/v1/namespaces/other/pods/foo", want{"get", "", "v1", "other", "pods", "", "foo", true}},
		{"GET", "/api/v1/pods", want{"list", "", "v1", "", "pods", "", "", true}},
		{"GET", "/api/v1/namespaces/other/pods?watch=true", want{"watch", "", "v1", "other", "pods", "", "", true}},
		{"GET", "/api/v1/namespaces/other/pods?watch=1", want{"watch", "", "v1", "other", "pods", "", "", true}},
		{"GET", "/api/v1/namespaces/other/pods?watch=False", want{"list", "", "v1", "other", "pods", "", "", true}},
		{"GET", "/api/v1/namespaces/other/pods?watch=0", want{"list", "", "v1", "other", "pods", "", "", true}},
		{"GET", "/api/v1/watch/namespaces/other/pods", want{"watch", "", "v1", "other", "pods", "", "", true}},
		{"GET", "/api/v1/namespaces/other/pods?fieldSelector=metadata.name%3Dfoo", want{"list", "", "v1", "other", "pods", "", "foo", true}},
		{"GET", "/api/v1/namespaces/other/pods?watch=true&fieldSelector=metadata.name%3Dfoo", want{"watch", "", "v1", "other", "pods", "", "foo", true}},
		{"GET", "/api/v1/namespaces/other/pods?fieldSelector=metadata.name%3D..", want{"list", "", "v1", "other", "pods", "", "", true}},
		{"GET", "/api/v1/namespaces/other/pods?fieldSelector=metadata.name!%3Dfoo", want{"list", "", "v1", "other", "pods", "", "", true}},
		{"POST", "/api/v1/namespaces/other/pods", want{"create", "", "v1", "other", "pods", "", "", true}},
		{"PUT", "/api/v1/namespaces/other/pods/foo", want{"update", "", "v1", "other", "pods", "", "foo", true}},
		{"PATCH", "/api/v1/namespaces/other/pods/foo", want{"patch", "", "v1", "other", "pods", "", "foo", true}},
		{"DELETE", "/api/v1/namespaces/other/pods/foo", want{"delete", "", "v1", "other", "pods", "", "foo", true}},
		{"DELETE", "/api/v1/namespaces/other/pods", want{"deletecollection", "", "v1", "other", "pods", "", "", true}},
		{"GET", "/api/v1/namespaces/other/pods/foo/log", want{"get", "", "v1", "other", "pods", "log", "foo", true}},
		{"POST", "/api/v1/namespaces/other/pods/foo/eviction", want{"create", "", "v1", "other", "pods", "eviction", "foo", true}},
		{"GET", "/apis/apps/v1/namespaces/other/deployments/web/scale", want{"get", "apps", "v1", "other", "deployments", "scale", "web", true}},
		{"GET", "/apis/apps/v1/deployments", want{"list", "apps", "v1", "", "deployments", "", "", true}},
		{"GET", "/api/v1/proxy/namespaces/other/pods/foo/bar", want{"proxy", "", "v1", "other", "pods", "", "foo", true}},
		{"GET", "/api/v1/nodes/n1/proxy/metrics", want{"get", "", "v1", "", "nodes", "proxy", "n1", true}},
		// Too short to name a resource: authorized as a path.
		{"GET", "/api/v1", want{"get", "", "", "", "", "", "", false}},
		{"GET", "/apis/apps/v1", want{"get", "", "", "", "", "", "", false}},
		{"GET", "/apis/apps", want{"get", "", "", "", "", "", "", false}},
		{"GET", "/healthz", want{"get", "", "", "", "", "", "", false}},
		{"POST", "/version", want{"post", "", "", "", "", "", "", false}},
		{"GET", "/openapi/v3/apis/apps/v1", want{"get", "", "", "", "", "", "", false}},
	}
	for _, tt := range tests {
		r := httptest.NewRequest(tt.method, tt.url, nil)
		a := Attributes(r, authorizer.Attributes{}.User)
		got := want{a.Verb, a.APIGroup, a.APIVersion, a.Namespace, a.Resource, a.Subresource, a.Name, a.ResourceRequest}
		if got != tt.want {
			t.Errorf("%s %s: got %+v, want %+v", tt.method, tt.url, got, tt.want)
		}
		if !a.ResourceRequest && a.Path != r.URL.Path {
			t.Errorf("%s %s: path %q", tt.method, tt.url, a.Path)
		}
	}
}
