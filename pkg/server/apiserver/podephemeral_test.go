package apiserver_test

import "testing"

// TestPodEphemeralContainers: the ephemeralcontainers subresource (what
// kubectl debug writes) adds containers to a pod and refuses removing or
// changing them, or giving them ports, as kube-apiserver does.
func TestPodEphemeralContainers(t *testing.T) {
	c := newClient(t)
	c.createNamespace("demo")
	pods := "/api/v1/namespaces/demo/pods"
	c.must(201, "POST", pods, pod("p", "node-1", container("c", "nginx")))
	sub := pods + "/p/ephemeralcontainers"
	smp := []string{"Content-Type", "application/strategic-merge-patch+json"}

	got := c.must(200, "PATCH", sub, map[string]any{"spec": map[string]any{"ephemeralContainers": []any{
		map[string]any{"name": "debugger", "image": "busybox", "targetContainerName": "c"},
	}}}, smp...)
	ecs, _ := got["spec"].(map[string]any)["ephemeralContainers"].([]any)
	if len(ecs) != 1 || ecs[0].(map[string]any)["terminationMessagePolicy"] != "File" {
		t.Fatalf("ephemeral containers %s, want debugger, defaulted", mustJSON(ecs))
	}
	if got := c.must(200, "GET", sub, nil); got["kind"] != "Pod" {
		t.Errorf("GET %s answered a %v, want the Pod", sub, got["kind"])
	}

	tests := []struct {
		name string
		ecs  []any
		want string
	}{
		{"removing", []any{}, `Pod "p" is invalid: spec.ephemeralContainers: Forbidden: existing ephemeral containers "debugger" may not be removed` + "\n"},
		{"ports", []any{
			map[string]any{"name": "debugger", "image": "busybox", "targetContainerName": "c", "imagePullPolicy": "Always",
				"terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File"},
			map[string]any{"name": "web", "image": "busybox", "ports": []any{map[string]any{"containerPort": 80}}},
		}, `Pod "p" is invalid: spec.ephemeralContainers[1].ports: Forbidden: cannot be set for an Ephemeral Container`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cur := c.must(200, "GET", sub, nil)
			cur["spec"].(map[string]any)["ephemeralContainers"] = tt.ecs
			st := c.must(422, "PUT", sub, cur)
			if got := str(st["message"]); got != tt.want {
				t.Errorf("message %q, want %q", got, tt.want)
			}
		})
	}
}
