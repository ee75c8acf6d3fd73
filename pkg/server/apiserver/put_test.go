package apiserver_test

import "testing"

// TestPutCreates: a PUT of a missing object creates it for the kinds
// kube-apiserver allows that for (Leases here), and is a 404 for the
// others.
func TestPutCreates(t *testing.T) {
	c := newClient(t)
	c.createNamespace("demo")
	lease := map[string]any{"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": map[string]any{"name": "l"},
		"spec": map[string]any{"holderIdentity": "me", "leaseDurationSeconds": 15}}
	got := c.must(201, "PUT", "/apis/coordination.k8s.io/v1/namespaces/demo/leases/l", lease)
	if meta(got)["uid"] == nil {
		t.Errorf("created lease has no uid: %s", mustJSON(got))
	}
	got = c.must(200, "PUT", "/apis/coordination.k8s.io/v1/namespaces/demo/leases/l", got)
	if spec := got["spec"].(map[string]any); spec["holderIdentity"] != "me" {
		t.Errorf("updated lease %s", mustJSON(spec))
	}
	c.must(404, "PUT", "/api/v1/namespaces/demo/configmaps/missing", configMap("demo", "missing", nil))
}
