package client

import (
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/apiserver/apiservertest"
)

func TestServerResources(t *testing.T) {
	c, err := New(apiservertest.Start(t).Config, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.ServerResources(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Resource{}
	for _, r := range res {
		byName[r.GVR.Resource+"."+r.GVR.Group] = r
	}
	tests := []struct {
		name       string
		kind       string
		namespaced bool
	}{
		{"configmaps.", "ConfigMap", true},
		{"namespaces.", "Namespace", false},
		{"leases.coordination.k8s.io", "Lease", true},
		{"customresourcedefinitions.apiextensions.k8s.io", "CustomResourceDefinition", false},
	}
	for _, tt := range tests {
		r, ok := byName[tt.name]
		if !ok {
			t.Errorf("%s not listed", tt.name)
			continue
		}
		if r.Kind != tt.kind || r.Namespaced != tt.namespaced || !r.Supports("list", "watch", "delete") {
			t.Errorf("%s = %+v", tt.name, r)
		}
	}
	if r := byName["configmaps."]; r.Supports("frobnicate") {
		t.Error("Supports(frobnicate) = true")
	}
}
