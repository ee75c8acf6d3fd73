package apiserver_test

import "testing"

// TestPodConnect: logs, exec, attach and port forwarding on simulated
// pods answer with kube's container checks and a clear refusal, never a
// 404 for the subresource.
func TestPodConnect(t *testing.T) {
	c := newClient(t)
	c.createNamespace("demo")
	pods := "/api/v1/namespaces/demo/pods"
	c.must(201, "POST", pods, pod("one", "", container("c", "nginx")))
	c.must(201, "POST", pods, pod("two", "node-1", container("a", "nginx"), container("b", "nginx")))
	tests := []struct {
		method, path string
		code         int
		message      string
	}{
		{"GET", pods + "/one/log", 200, ""},
		{"GET", pods + "/one/log?container=x", 400, "container x is not valid for pod one"},
		{"GET", pods + "/two/log", 400, "a container name must be specified for pod two, choose one of: [a b]"},
		{"GET", pods + "/two/log?container=a", 400, `container "a" in pod "two" is waiting to start: ContainerCreating`},
		{"POST", pods + "/one/exec?command=ls&container=c&stdout=true", 400, "pod one does not have a host assigned"},
		{"POST", pods + "/two/exec?command=ls&container=a&stdout=true", 400, `cannot exec container "a" in pod "two": it runs on simulated node "node-1", which starts no processes`},
		{"POST", pods + "/two/portforward?ports=80", 400, `cannot forward ports of pod "two": it runs on simulated node "node-1", which starts no processes`},
		{"GET", pods + "/two/log?bogus=1", 400, `unknown query parameter "bogus" for get`},
		{"GET", pods + "/nope/log", 404, `pods "nope" not found`},
		{"PUT", pods + "/one/log", 405, "the server does not allow this method on the requested resource"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			r := c.do(tt.method, tt.path, nil)
			if r.code != tt.code {
				t.Fatalf("code %d, want %d: %s", r.code, tt.code, r.body)
			}
			if tt.code == 200 {
				if len(r.body) != 0 {
					t.Errorf("log %q, want empty", r.body)
				}
				return
			}
			if got := str(r.json(t)["message"]); got != tt.message {
				t.Errorf("message %q, want %q", got, tt.message)
			}
		})
	}
}
