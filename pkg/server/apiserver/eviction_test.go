package apiserver_test

import (
	"strings"
	"testing"
)

const mergePatch = "application/merge-patch+json"

func eviction(name string) map[string]any {
	return map[string]any{"apiVersion": "policy/v1", "kind": "Eviction", "metadata": map[string]any{"name": name}}
}

func pdb(name string, spec map[string]any) map[string]any {
	return map[string]any{"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": map[string]any{"name": name}, "spec": spec}
}

// runningPod creates a pod labelled app=app, bound to node-1, Running
// and Ready as its kubelet would report.
func runningPod(c *client, ns, name, app string) {
	c.t.Helper()
	p := pod(name, "node-1", container("c", "nginx"))
	p["metadata"].(map[string]any)["labels"] = map[string]any{"app": app}
	c.must(201, "POST", "/api/v1/namespaces/"+ns+"/pods", p)
	c.must(200, "PATCH", "/api/v1/namespaces/"+ns+"/pods/"+name+"/status",
		`{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}`, "Content-Type", mergePatch)
}

// budgetStatus writes a budget's status as the disruption controller
// would.
func budgetStatus(c *client, ns, name string, observed, allowed, current, desired int) {
	c.t.Helper()
	c.must(200, "PATCH", "/apis/policy/v1/namespaces/"+ns+"/poddisruptionbudgets/"+name+"/status", map[string]any{"status": map[string]any{
		"observedGeneration": observed, "disruptionsAllowed": allowed, "currentHealthy": current, "desiredHealthy": desired, "expectedPods": current,
	}}, "Content-Type", mergePatch)
}

// TestEviction evicts pods as kube-apiserver's pods/eviction does: a
// budget that allows a disruption is charged and the pod deleted
// gracefully with a DisruptionTarget condition; one that allows none
// answers 429 with kube's cause; a pod two budgets cover is a 500; a
// pod not running is deleted whatever its budget says.
func TestEviction(t *testing.T) {
	c := newClient(t)
	c.createNamespace("demo")
	pods := "/api/v1/namespaces/demo/pods"
	pdbs := "/apis/policy/v1/namespaces/demo/poddisruptionbudgets"
	runningPod(c, "demo", "web-0", "web")
	runningPod(c, "demo", "web-1", "web")
	c.must(201, "POST", pdbs, pdb("web", map[string]any{"minAvailable": 1, "selector": map[string]any{"matchLabels": map[string]any{"app": "web"}}}))

	// The controller has not seen the budget: kube asks to retry later.
	r := c.do("POST", pods+"/web-0/eviction", eviction("web-0"))
	st := r.json(t)
	if r.code != 429 || str(st["message"]) != "Cannot evict pod as it would violate the pod's disruption budget." {
		t.Fatalf("eviction before the controller: %d %s", r.code, r.body)
	}
	if got, want := mustJSON(st["details"]), `{"causes":[{"message":"The disruption budget web is still being processed by the server.","reason":"DisruptionBudget"}],"retryAfterSeconds":10}`; got != want {
		t.Errorf("details %s, want %s", got, want)
	}
	if r.header.Get("Retry-After") != "10" {
		t.Errorf("Retry-After %q, want 10", r.header.Get("Retry-After"))
	}

	budgetStatus(c, "demo", "web", 1, 1, 2, 1)
	// A dry run changes neither the pod nor the budget.
	before := c.must(200, "GET", pdbs+"/web", nil)
	c.must(201, "POST", pods+"/web-0/eviction?dryRun=All", eviction("web-0"))
	if got := c.must(200, "GET", pdbs+"/web", nil); meta(got)["resourceVersion"] != meta(before)["resourceVersion"] {
		t.Errorf("a dry-run eviction wrote the budget: %s", mustJSON(got["status"]))
	}
	if got := c.must(200, "GET", pods+"/web-0", nil); meta(got)["deletionTimestamp"] != nil {
		t.Errorf("a dry-run eviction deleted the pod")
	}
	st = c.must(201, "POST", pods+"/web-0/eviction", eviction("web-0"))
	if st["kind"] != "Status" || st["status"] != "Success" {
		t.Errorf("eviction answered %s, want a Success Status", mustJSON(st))
	}
	got := c.must(200, "GET", pods+"/web-0", nil)
	if meta(got)["deletionTimestamp"] == nil {
		t.Errorf("evicted pod has no deletionTimestamp: %s", mustJSON(got))
	}
	var target map[string]any
	for _, cond := range got["status"].(map[string]any)["conditions"].([]any) {
		if cm := cond.(map[string]any); cm["type"] == "DisruptionTarget" {
			target = cm
		}
	}
	if target["status"] != "True" || target["reason"] != "EvictionByEvictionAPI" || target["message"] != "Eviction API: evicting" {
		t.Errorf("DisruptionTarget = %v", target)
	}
	budget := c.must(200, "GET", pdbs+"/web", nil)["status"].(map[string]any)
	if budget["disruptionsAllowed"] != float64(0) || budget["disruptedPods"].(map[string]any)["web-0"] == nil {
		t.Errorf("budget status after the eviction: %s", mustJSON(budget))
	}
	if conds := mustJSON(budget["conditions"]); !strings.Contains(conds, `"reason":"InsufficientPods"`) || !strings.Contains(conds, `"status":"False"`) {
		t.Errorf("budget conditions %s, want DisruptionAllowed False InsufficientPods", conds)
	}

	// The budget allows no more.
	r = c.do("POST", pods+"/web-1/eviction", eviction("web-1"))
	st = r.json(t)
	if r.code != 429 || st["reason"] != "TooManyRequests" {
		t.Fatalf("blocked eviction: %d %s", r.code, r.body)
	}
	if got, want := mustJSON(st["details"]), `{"causes":[{"message":"The disruption budget web needs 1 healthy pods and has 2 currently","reason":"DisruptionBudget"}]}`; got != want {
		t.Errorf("details %s, want %s", got, want)
	}
	c.must(200, "GET", pods+"/web-1", nil)

	// A pending pod goes whatever its budget says.
	p := pod("pending", "", container("c", "nginx"))
	p["metadata"].(map[string]any)["labels"] = map[string]any{"app": "web"}
	c.must(201, "POST", pods, p)
	c.must(201, "POST", pods+"/pending/eviction", eviction("pending"))
	c.must(404, "GET", pods+"/pending", nil)

	tests := []struct {
		name    string
		path    string
		body    map[string]any
		code    int
		message string
	}{
		{"name mismatch", pods + "/web-1/eviction", eviction("web-0"), 400, "name in URL does not match name in Eviction object"},
		{"missing pod", pods + "/nope/eviction", eviction("nope"), 404, `pods "nope" not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := c.must(tt.code, "POST", tt.path, tt.body)
			if got := str(st["message"]); got != tt.message {
				t.Errorf("message %q, want %q", got, tt.message)
			}
		})
	}

	t.Run("two budgets", func(t *testing.T) {
		c.must(201, "POST", pdbs, pdb("all", map[string]any{"maxUnavailable": 1, "selector": map[string]any{}}))
		st := c.must(500, "POST", pods+"/web-1/eviction", eviction("web-1"))
		if got, want := str(st["message"]), "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."; got != want {
			t.Errorf("message %q, want %q", got, want)
		}
	})

	t.Run("unready pod of a met budget, with deleteOptions", func(t *testing.T) {
		c.must(200, "DELETE", pdbs+"/all", nil)
		c.must(200, "PATCH", pods+"/web-1/status", `{"status":{"conditions":[{"type":"Ready","status":"False"}]}}`, "Content-Type", mergePatch)
		// The budget allows no disruption, but it is met (2 healthy of
		// 1 desired) and the pod is not among the healthy: it goes
		// uncharged, here at once as its deleteOptions ask.
		ev := eviction("web-1")
		ev["deleteOptions"] = map[string]any{"gracePeriodSeconds": 0}
		c.must(201, "POST", pods+"/web-1/eviction", ev)
		c.must(404, "GET", pods+"/web-1", nil)
	})
}

// TestPodDisruptionBudgetServed checks what a created budget looks
// like: generation 1, the empty status kube gives it, and kube's table.
func TestPodDisruptionBudgetServed(t *testing.T) {
	c := newClient(t)
	c.createNamespace("demo")
	pdbs := "/apis/policy/v1/namespaces/demo/poddisruptionbudgets"
	got := c.must(201, "POST", pdbs, pdb("web", map[string]any{"maxUnavailable": "50%", "selector": map[string]any{}}))
	if meta(got)["generation"] != float64(1) {
		t.Errorf("generation %v, want 1", meta(got)["generation"])
	}
	if got, want := mustJSON(got["status"]), `{"currentHealthy":0,"desiredHealthy":0,"disruptionsAllowed":0,"expectedPods":0}`; got != want {
		t.Errorf("status %s, want %s", got, want)
	}
	cols, rows := tableOf(t, c.must(200, "GET", pdbs, nil, "Accept", tableAccept))
	if got, want := mustJSON(cols), `["Name","Min Available","Max Unavailable","Allowed Disruptions","Age"]`; got != want {
		t.Errorf("columns %s, want %s", got, want)
	}
	if len(rows) != 1 || mustJSON(rows[0][:4]) != `["web","N/A","50%",0]` {
		t.Errorf("rows %s", mustJSON(rows))
	}
	c.must(422, "POST", pdbs, pdb("both", map[string]any{"maxUnavailable": 1, "minAvailable": 1}))
}
