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

// TestNamespaceStatusPhase checks kube-apiserver's rule for a namespace's
// phase on status writes: Active unless it is being deleted, then
// Terminating; an empty phase is Active.
func TestNamespaceStatusPhase(t *testing.T) {
	c := newClient(t)
	c.createNamespace("live")
	c.createNamespace("dying")
	c.must(http.StatusOK, "DELETE", "/api/v1/namespaces/dying", nil)
	tests := []struct {
		name, ns, phase string
		wantCode        int
		wantMessage     string
	}{
		{"active stays active", "live", "Active", 200, ""},
		{"empty phase is active", "live", "", 200, ""},
		{"terminating without deletion", "live", "Terminating", 422, "Namespace \"live\" is invalid: status.Phase: Invalid value: \"Terminating\": may only be 'Active' if `deletionTimestamp` is empty"},
		{"unknown phase", "live", "Bogus", 422, "Namespace \"live\" is invalid: status.Phase: Invalid value: \"Bogus\": may only be 'Active' if `deletionTimestamp` is empty"},
		{"active while deleted", "dying", "Active", 422, "Namespace \"dying\" is invalid: status.Phase: Invalid value: \"Active\": may only be 'Terminating' if `deletionTimestamp` is not empty"},
		{"terminating while deleted", "dying", "Terminating", 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.do("PATCH", "/api/v1/namespaces/"+tt.ns+"/status", `{"status":{"phase":"`+tt.phase+`"}}`, "Content-Type", "application/merge-patch+json")
			if r.code != tt.wantCode {
				t.Fatalf("got %d, want %d: %s", r.code, tt.wantCode, r.body)
			}
			if tt.wantMessage != "" {
				if got := r.json(t)["message"]; got != tt.wantMessage {
					t.Errorf("message\n got %v\nwant %s", got, tt.wantMessage)
				}
			}
		})
	}
}
