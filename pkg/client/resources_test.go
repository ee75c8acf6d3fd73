package client_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

func TestServerResources(t *testing.T) {
	c, err := client.New(apiservertest.Start(t).Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.ServerResources(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]client.Resource{}
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

func TestUpdateSubresourceFinalize(t *testing.T) {
	c, err := client.New(apiservertest.Start(t).Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "finalize-me"}}
	if err := c.Create(t.Context(), ns); err != nil {
		t.Fatal(err)
	}
	if len(ns.Spec.Finalizers) == 0 {
		t.Fatal("a new namespace has no spec finalizers")
	}
	ns.Spec.Finalizers = nil
	if err := c.UpdateSubresource(t.Context(), ns, "finalize"); err != nil {
		t.Fatal(err)
	}
	if len(ns.Spec.Finalizers) != 0 {
		t.Errorf("finalizers after finalize = %v, want none", ns.Spec.Finalizers)
	}
}
