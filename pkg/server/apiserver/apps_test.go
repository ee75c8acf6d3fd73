package apiserver_test

import (
	"net/http"
	"strings"
	"testing"
)

const deployments = "/apis/apps/v1/namespaces/demo/deployments"

// webDeployment is what `kubectl create deployment web --image=nginx
// --replicas=N` sends.
func webDeployment(replicas string) string {
	return `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":{"app":"web"}},
 "spec":{"replicas":` + replicas + `,"selector":{"matchLabels":{"app":"web"}},
  "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"nginx","image":"nginx"}]}}}}`
}

// TestDeploymentGenerations: spec and annotation changes are new
// generations, label and status changes are not, as kube counts them.
func TestDeploymentGenerations(t *testing.T) {
	c := newClient(t)
	c.createNamespace("demo")
	c.must(http.StatusCreated, "POST", deployments, webDeployment("2"))
	merge := []string{"Content-Type", "application/merge-patch+json"}
	tests := []struct {
		name, path, patch string
		want              float64
	}{
		{"created", "", "", 1},
		{"replicas", "", `{"spec":{"replicas":3}}`, 2},
		{"labels", "", `{"metadata":{"labels":{"tier":"fe"}}}`, 2},
		{"annotations", "", `{"metadata":{"annotations":{"note":"x"}}}`, 3},
		{"status", "/status", `{"status":{"replicas":3}}`, 3},
		{"scale", "/scale", `{"spec":{"replicas":1}}`, 4},
		{"same replicas", "", `{"spec":{"replicas":1}}`, 4},
	}
	for _, tt := range tests {
		if tt.patch != "" {
			c.must(http.StatusOK, "PATCH", deployments+"/web"+tt.path, tt.patch, merge...)
		}
		obj := c.must(http.StatusOK, "GET", deployments+"/web", nil)
		if got := meta(obj)["generation"]; got != tt.want {
			t.Errorf("%s: generation %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestWorkloadScale: a workload's Scale reports its selector in label
// selector syntax, and leaves out zero desired replicas as
// autoscaling/v1 encodes them.
func TestWorkloadScale(t *testing.T) {
	c := newClient(t)
	c.createNamespace("demo")
	c.must(http.StatusCreated, "POST", deployments, webDeployment("0"))
	scale := c.must(http.StatusOK, "GET", deployments+"/web/scale", nil)
	if got, want := mustJSON(scale["spec"]), `{}`; got != want {
		t.Errorf("spec of a Scale at zero: %s, want %s", got, want)
	}
	if got, want := mustJSON(scale["status"]), `{"replicas":0,"selector":"app=web"}`; got != want {
		t.Errorf("status %s, want %s", got, want)
	}
	c.must(http.StatusOK, "PUT", deployments+"/web/scale", `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"web"},"spec":{"replicas":5}}`)
	obj := c.must(http.StatusOK, "GET", deployments+"/web", nil)
	if got := obj["spec"].(map[string]any)["replicas"]; got != float64(5) {
		t.Errorf("replicas after the scale write %v, want 5", got)
	}
	r := c.do("GET", "/apis/apps/v1/namespaces/demo/daemonsets/x/scale", nil)
	if r.code != http.StatusNotFound {
		t.Errorf("daemonsets/scale: %d, want 404", r.code)
	}
}

// TestAppsTables: the columns kubectl prints for the workloads, wide
// ones included, named and ordered as kube's printers do.
func TestAppsTables(t *testing.T) {
	c := newClient(t)
	c.createNamespace("demo")
	c.must(http.StatusCreated, "POST", deployments, webDeployment("5"))
	tests := []struct {
		plural, want string
		row          []any
	}{
		{"deployments", "Name Ready Up-to-date Available Age Containers Images Selector", []any{"web", "0/5", float64(0), float64(0)}},
		{"replicasets", "Name Desired Current Ready Age Containers Images Selector", nil},
		{"statefulsets", "Name Ready Age Containers Images", nil},
		{"daemonsets", "Name Desired Current Ready Up-to-date Available Node Selector Age Containers Images Selector", nil},
		{"controllerrevisions", "Name Controller Revision Age", nil},
	}
	for _, tt := range tests {
		cols, rows := tableOf(t, c.must(http.StatusOK, "GET", "/apis/apps/v1/namespaces/demo/"+tt.plural, nil, "Accept", tableAccept))
		if got := strings.Join(cols, " "); got != tt.want {
			t.Errorf("%s columns %q, want %q", tt.plural, got, tt.want)
		}
		if tt.row == nil {
			continue
		}
		if len(rows) != 1 {
			t.Fatalf("%s rows %v, want one", tt.plural, rows)
		}
		if got := mustJSON(rows[0][:len(tt.row)]); got != mustJSON(tt.row) {
			t.Errorf("%s row %s, want %s", tt.plural, got, mustJSON(tt.row))
		}
	}
}
