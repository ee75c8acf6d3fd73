package apiserver_test

import (
	"testing"
	"time"
)

func binding(name, node string) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "Binding", "metadata": map[string]any{"name": name},
		"target": map[string]any{"apiVersion": "v1", "kind": "Node", "name": node}}
}

// TestPodBinding binds pods as kube-scheduler does: a 201 Success, the
// node and a True PodScheduled condition on the pod; a second binding is
// a 409 on pods/binding.
func TestPodBinding(t *testing.T) {
	c := newClient(t)
	c.createNamespace("demo")
	pods := "/api/v1/namespaces/demo/pods"
	c.must(201, "POST", pods, pod("p", "", container("c", "nginx")))

	st := c.must(201, "POST", pods+"/p/binding", binding("p", "node-1"))
	if st["kind"] != "Status" || st["status"] != "Success" {
		t.Errorf("binding answered %s, want a Success Status", mustJSON(st))
	}
	got := c.must(200, "GET", pods+"/p", nil)
	if n := got["spec"].(map[string]any)["nodeName"]; n != "node-1" {
		t.Errorf("nodeName = %v, want node-1", n)
	}
	var scheduled map[string]any
	for _, cond := range got["status"].(map[string]any)["conditions"].([]any) {
		if cm := cond.(map[string]any); cm["type"] == "PodScheduled" {
			scheduled = cm
		}
	}
	if scheduled["status"] != "True" || scheduled["lastTransitionTime"] == nil {
		t.Errorf("PodScheduled = %v, want True with a transition time", scheduled)
	}

	tests := []struct {
		name    string
		path    string
		body    map[string]any
		code    int
		message string
	}{
		{"already bound", pods + "/p/binding", binding("p", "node-2"), 409,
			`Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "node-1"`},
		{"name mismatch", pods + "/p/binding", binding("q", "node-2"), 400, "name in URL does not match name in Binding object"},
		{"missing pod", pods + "/nope/binding", binding("nope", "node-2"), 404, `pods "nope" not found`},
		{"no target", pods + "/p/binding", map[string]any{"apiVersion": "v1", "kind": "Binding", "metadata": map[string]any{"name": "p"}}, 500,
			"target.name: Required value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := c.must(tt.code, "POST", tt.path, tt.body)
			if got := str(st["message"]); got != tt.message {
				t.Errorf("message %q, want %q", got, tt.message)
			}
		})
	}
	t.Run("binding is create only", func(t *testing.T) {
		c.must(405, "GET", pods+"/p/binding", nil)
	})
}

// TestPodGracefulDelete deletes a scheduled pod as kube-apiserver does:
// it stays, with deletionTimestamp at the end of its grace period, until
// a delete with no grace period (the kubelet's, or --force) removes it;
// an unscheduled pod goes at once.
func TestPodGracefulDelete(t *testing.T) {
	c := newClient(t)
	c.createNamespace("demo")
	pods := "/api/v1/namespaces/demo/pods"
	c.must(201, "POST", pods, pod("unscheduled", "", container("c", "nginx")))
	if got := c.must(200, "DELETE", pods+"/unscheduled", nil); got["kind"] != "Pod" {
		t.Errorf("delete answered %s, want the pod", got["kind"])
	}
	c.must(404, "GET", pods+"/unscheduled", nil)

	c.must(201, "POST", pods, pod("p", "node-1", container("c", "nginx")))
	before := time.Now().Truncate(time.Second)
	got := c.must(200, "DELETE", pods+"/p", nil)
	m := meta(got)
	ts, err := time.Parse(time.RFC3339, str(m["deletionTimestamp"]))
	if err != nil || m["deletionGracePeriodSeconds"] != float64(30) {
		t.Fatalf("after delete: deletionTimestamp %v, deletionGracePeriodSeconds %v; want one 30 s on", m["deletionTimestamp"], m["deletionGracePeriodSeconds"])
	}
	if d := ts.Sub(before); d < 29*time.Second || d > 32*time.Second {
		t.Errorf("deletionTimestamp %s after the delete, want 30 s", d)
	}
	// A longer period changes nothing; a shorter one moves it back.
	if got := meta(c.must(200, "DELETE", pods+"/p?gracePeriodSeconds=60", nil)); got["deletionGracePeriodSeconds"] != float64(30) {
		t.Errorf("longer grace period: %v, want 30 kept", got["deletionGracePeriodSeconds"])
	}
	if got := meta(c.must(200, "DELETE", pods+"/p?gracePeriodSeconds=5", nil)); got["deletionGracePeriodSeconds"] != float64(5) {
		t.Errorf("shorter grace period: %v, want 5", got["deletionGracePeriodSeconds"])
	}
	c.must(200, "GET", pods+"/p", nil)
	c.must(200, "DELETE", pods+"/p", map[string]any{"apiVersion": "v1", "kind": "DeleteOptions", "gracePeriodSeconds": 0})
	c.must(404, "GET", pods+"/p", nil)
}
