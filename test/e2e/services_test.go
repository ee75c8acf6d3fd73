package e2e_test

import (
	"strings"
	"testing"
)

// TestServicesAndEndpoints: `kubectl expose` of a running pod gets a
// cluster IP from the Service range, and its EndpointSlice and Endpoints
// list the pod's IP and port once it is Ready; the kubernetes Service
// names the API server; `kubectl cluster-info` answers.
func TestServicesAndEndpoints(t *testing.T) {
	srv := startFreshServer(t)
	k := newKubectl(t, kubectlPath(t), srv)

	wantLines(t, "get svc kubernetes", k.ok(t, "get", "svc", "kubernetes"),
		`NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE`, `kubernetes\s+ClusterIP\s+10\.96\.0\.1\s+<none>\s+443/TCP\s+\S+`)
	if out := k.ok(t, "cluster-info"); !strings.Contains(out, "is running at "+srv.url) {
		t.Errorf("cluster-info: %q", out)
	}

	k.ok(t, "run", "web", "--image=nginx", "--port=80", "--labels=app=web")
	k.ok(t, "wait", "--for=condition=Ready", "pod/web", "--timeout=60s")
	k.ok(t, "expose", "pod", "web", "--port=8080", "--target-port=80")
	wantLines(t, "get svc web", k.ok(t, "get", "svc", "web", "-o", "wide"),
		`web\s+ClusterIP\s+10\.(9[6-9]|10[0-9]|11[01])\.\d+\.\d+\s+<none>\s+8080/TCP\s+\S+\s+app=web`)
	podIP := k.ok(t, "get", "pod", "web", "-o", "jsonpath={.status.podIP}")
	eventually(t, "the endpoints of web", func() (string, bool) {
		out := k.ok(t, "get", "endpoints", "web")
		return out, strings.Contains(out, podIP+":80")
	})
	eventually(t, "the endpoint slice of web", func() (string, bool) {
		out := k.ok(t, "get", "endpointslices", "-l", "kubernetes.io/service-name=web")
		return out, strings.Contains(out, podIP) && strings.Contains(out, "IPv4")
	})

	// A deleted pod leaves the endpoints.
	k.ok(t, "delete", "pod", "web")
	eventually(t, "web's endpoints to empty", func() (string, bool) {
		out := k.ok(t, "get", "endpoints", "web", "-o", "jsonpath={.subsets}")
		return out, out == ""
	})
}
