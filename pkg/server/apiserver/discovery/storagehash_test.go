package discovery

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

// TestStorageVersionHash checks legacy discovery's storageVersionHash:
// a custom resource names its CRD's storage version in every served
// version, and none when that version is not served, as kube-apiserver
// does. The hashes are base64 of SHA-256("group/version/kind")[:8].
func TestStorageVersionHash(t *testing.T) {
	crd := func(storage string, served ...string) map[string]any {
		var versions []any
		for _, v := range []string{"v1", "v1beta1"} {
			isServed := false
			for _, s := range served {
				isServed = isServed || s == v
			}
			versions = append(versions, map[string]any{"name": v, "served": isServed, "storage": v == storage})
		}
		return map[string]any{
			"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
			"metadata": map[string]any{"name": "widgets.example.com"},
			"spec": map[string]any{
				"group": "example.com", "scope": "Namespaced",
				"names":    map[string]any{"kind": "Widget", "plural": "widgets"},
				"versions": versions,
			},
		}
	}
	tests := []struct {
		name string
		crd  map[string]any
		want map[string]string // served version -> hash
	}{
		{"stored in v1, both served", crd("v1", "v1", "v1beta1"), map[string]string{"v1": "gIwvi5rymmg=", "v1beta1": "gIwvi5rymmg="}},
		{"stored in v1beta1, both served", crd("v1beta1", "v1", "v1beta1"), map[string]string{"v1": "3KMbXL6XZiI=", "v1beta1": "3KMbXL6XZiI="}},
		{"storage version not served", crd("v1beta1", "v1"), map[string]string{"v1": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, err := registry.FromCRD(tt.crd)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, r := range rs {
				for _, a := range legacyResources([]*registry.Resource{r}) {
					got[r.Version] = a.StorageVersionHash
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("versions %v, want %v", got, tt.want)
			}
			for v, want := range tt.want {
				if got[v] != want {
					t.Errorf("%s: storageVersionHash %q, want %q", v, got[v], want)
				}
			}
		})
	}
}

// TestCustomResourceVerbs checks a custom resource's verbs in both
// discovery documents: every verb, in the order kube-apiserver lists
// them.
func TestCustomResourceVerbs(t *testing.T) {
	rs, err := registry.FromCRD(map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets.example.com"},
		"spec": map[string]any{
			"group": "example.com", "scope": "Namespaced",
			"names":    map[string]any{"kind": "Widget", "plural": "widgets"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true}},
		},
	})
	if err != nil || len(rs) != 1 {
		t.Fatalf("FromCRD: %d resources, %v", len(rs), err)
	}
	want := []string{"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"}
	legacy := legacyResources(rs)
	if got := []string(legacy[0].Verbs); !slices.Equal(got, want) {
		t.Errorf("legacy verbs %v, want %v", got, want)
	}
	for _, v := range want {
		if !rs[0].Serves(v) {
			t.Errorf("custom resource does not serve %s", v)
		}
	}
}

// TestSharedStorageVersionHash checks that resources kept in another's
// storage name its storage version, as kube-apiserver gives
// events.k8s.io/v1 Events core/v1 Events' hash.
func TestSharedStorageVersionHash(t *testing.T) {
	reg := registry.New(registry.Builtin()...)
	tests := []struct {
		gvr  schema.GroupVersionResource
		want string
	}{
		{schema.GroupVersionResource{Version: "v1", Resource: "events"}, "r2yiGXH7wu8="},
		{schema.GroupVersionResource{Group: "events.k8s.io", Version: "v1", Resource: "events"}, "r2yiGXH7wu8="},
	}
	for _, tt := range tests {
		r, ok := reg.Get(tt.gvr)
		if !ok {
			t.Fatalf("%s is not served", tt.gvr)
		}
		if got := legacyResources([]*registry.Resource{r})[0].StorageVersionHash; got != tt.want {
			t.Errorf("%s: storageVersionHash %q, want %q", tt.gvr, got, tt.want)
		}
	}
}
