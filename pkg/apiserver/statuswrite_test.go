package apiserver_test

import (
	"net/http"
	"reflect"
	"testing"
)

// TestStatusWriteKeeps checks what a merge patch of /status keeps per
// kind, as kube-apiserver's status strategies do: Namespaces and CRDs
// keep the write's metadata but not its spec; custom resources keep only
// the status.
func TestStatusWriteKeeps(t *testing.T) {
	c := newThings(t)
	c.createNamespace("ns-status")
	c.must(http.StatusCreated, "POST", things, thing("t", map[string]any{"name": "x"}))
	const mergePatch = "application/merge-patch+json"
	tests := []struct {
		name, path, patch string
		// wantAnnotation is whether the patch's annotation is stored.
		wantAnnotation bool
		// spec reads the spec field the patch tried to change.
		spec     []string
		wantSpec any
	}{
		{
			name: "namespace", path: "/api/v1/namespaces/ns-status/status",
			patch:          `{"metadata":{"annotations":{"a":"b"},"labels":{"l":"v"}},"spec":{"finalizers":[]},"status":{"phase":"Active"}}`,
			wantAnnotation: true, spec: []string{"spec", "finalizers"}, wantSpec: []any{"kubernetes"},
		},
		{
			name: "custom resource definition", path: crds + "/things.example.com/status",
			patch:          `{"metadata":{"annotations":{"a":"b"},"labels":{"l":"v"}},"spec":{"scope":"Cluster"}}`,
			wantAnnotation: true, spec: []string{"spec", "scope"}, wantSpec: "Namespaced",
		},
		{
			name: "custom resource", path: things + "/t/status",
			patch:          `{"metadata":{"annotations":{"a":"b"},"labels":{"l":"v"}},"spec":{"name":"y"},"status":{"phase":"Ready"}}`,
			wantAnnotation: false, spec: []string{"spec", "name"}, wantSpec: "x",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := c.must(http.StatusOK, "PATCH", tt.path, tt.patch, "Content-Type", mergePatch)
			ann, _ := meta(got)["annotations"].(map[string]any)
			labels, _ := meta(got)["labels"].(map[string]any)
			if has := ann["a"] == "b"; has != tt.wantAnnotation {
				t.Errorf("annotations %v, want the patch's kept: %v", ann, tt.wantAnnotation)
			}
			if has := labels["l"] == "v"; has != tt.wantAnnotation {
				t.Errorf("labels %v, want the patch's kept: %v", labels, tt.wantAnnotation)
			}
			var v any = got
			for _, k := range tt.spec {
				v = v.(map[string]any)[k]
			}
			if !reflect.DeepEqual(v, tt.wantSpec) {
				t.Errorf("%v = %v, want %v (unchanged)", tt.spec, v, tt.wantSpec)
			}
		})
	}
}
