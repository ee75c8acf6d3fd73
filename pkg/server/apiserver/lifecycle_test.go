package apiserver_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

const widgetCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
 "metadata":{"name":"widgets.example.com"},
 "spec":{"group":"example.com","scope":"Namespaced",
  "names":{"plural":"widgets","singular":"widget","kind":"Widget","shortNames":["wd"]},
  "versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
   "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`

func TestServerSetMetadata(t *testing.T) {
	c := newClient(t)
	c.createNamespace("demo")
	obj := c.must(201, "POST", "/api/v1/namespaces/demo/configmaps", map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"generateName": "gen-", "uid": "client-uid", "resourceVersion": "99", "creationTimestamp": "2000-01-01T00:00:00Z", "generation": 7},
	})
	m := meta(obj)
	if name := str(m["name"]); !regexp.MustCompile(`^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$`).MatchString(name) {
		t.Errorf("generated name %q, want gen- plus 5 characters", name)
	}
	if uid := str(m["uid"]); uid == "client-uid" || len(uid) != 36 {
		t.Errorf("uid %q, want a server UUID", uid)
	}
	if rv := str(m["resourceVersion"]); rv == "99" || rv == "" || rv == "0" {
		t.Errorf("resourceVersion %q, want the storage revision", rv)
	}
	ts, err := time.Parse(time.RFC3339, str(m["creationTimestamp"]))
	if err != nil || time.Since(ts) > time.Minute {
		t.Errorf("creationTimestamp %q, want now in RFC 3339 seconds", m["creationTimestamp"])
	}
	// Like kube-apiserver, ConfigMaps do not track generation; custom
	// resources do (TestGenerationAndStatus).
	if g, ok := m["generation"]; ok {
		t.Errorf("ConfigMap generation %v, want none", g)
	}
	got := c.must(200, "GET", "/api/v1/namespaces/demo/configmaps/"+str(m["name"]), nil)
	if str(meta(got)["resourceVersion"]) != str(m["resourceVersion"]) {
		t.Errorf("GET resourceVersion %v, want %v", meta(got)["resourceVersion"], m["resourceVersion"])
	}
}

// TestGeneratedNameBeforeStrategy: the name is generated before the
// kind's strategy runs, as in kube-apiserver, so a Job created with
// generateName carries its generated name in its job-name labels.
func TestGeneratedNameBeforeStrategy(t *testing.T) {
	c := newClient(t)
	c.createNamespace("demo")
	obj := c.must(201, "POST", "/apis/batch/v1/namespaces/demo/jobs", map[string]any{
		"apiVersion": "batch/v1", "kind": "Job",
		"metadata": map[string]any{"generateName": "pi-"},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
			"restartPolicy": "Never", "containers": []any{map[string]any{"name": "pi", "image": "perl"}},
		}}},
	})
	name := str(meta(obj)["name"])
	labels, _ := obj["spec"].(map[string]any)["template"].(map[string]any)["metadata"].(map[string]any)["labels"].(map[string]any)
	for _, key := range []string{"batch.kubernetes.io/job-name", "job-name"} {
		if got := str(labels[key]); got != name || !strings.HasPrefix(name, "pi-") {
			t.Errorf("template label %s = %q, want the generated name %q", key, got, name)
		}
	}
}

func TestGenerationAndStatus(t *testing.T) {
	c := newClient(t)
	c.createNamespace("demo")
	c.must(201, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", widgetCRD)
	const path = "/apis/example.com/v1/namespaces/demo/widgets"
	w := c.must(201, "POST", path, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":1},"status":{"ready":true}}`)
	if _, ok := w["status"]; ok {
		t.Fatalf("create kept status: %v", w["status"])
	}
	gen := func(obj map[string]any) float64 { return meta(obj)["generation"].(float64) }
	steps := []struct {
		name    string
		method  string
		path    string
		body    string
		ctype   string
		wantGen float64
		check   func(t *testing.T, obj map[string]any)
	}{
		{"label change keeps generation", "PATCH", path + "/w", `{"metadata":{"labels":{"a":"b"}}}`, "application/merge-patch+json", 1, nil},
		{"spec change bumps generation", "PATCH", path + "/w", `{"spec":{"size":2}}`, "application/merge-patch+json", 2, nil},
		{"status through main resource is ignored", "PATCH", path + "/w", `{"status":{"ready":true}}`, "application/merge-patch+json", 2, func(t *testing.T, obj map[string]any) {
			if _, ok := obj["status"]; ok {
				t.Errorf("status written through the main resource: %v", obj["status"])
			}
		}},
		{"status subresource writes status only", "PATCH", path + "/w/status", `{"spec":{"size":9},"status":{"ready":true}}`, "application/merge-patch+json", 2, func(t *testing.T, obj map[string]any) {
			if obj["status"].(map[string]any)["ready"] != true {
				t.Errorf("status not written: %v", obj["status"])
			}
			if obj["spec"].(map[string]any)["size"] != float64(2) {
				t.Errorf("spec written through /status: %v", obj["spec"])
			}
		}},
		{"JSON patch", "PATCH", path + "/w", `[{"op":"replace","path":"/spec/size","value":3}]`, "application/json-patch+json", 3, nil},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			obj := c.must(200, s.method, s.path, s.body, "Content-Type", s.ctype)
			if got := gen(obj); got != s.wantGen {
				t.Errorf("generation %v, want %v", got, s.wantGen)
			}
			if s.check != nil {
				s.check(t, obj)
			}
		})
	}
	// A no-op update is not written: the resourceVersion stays.
	cur := c.must(200, "GET", path+"/w", nil)
	again := c.must(200, "PUT", path+"/w", cur)
	if str(meta(again)["resourceVersion"]) != str(meta(cur)["resourceVersion"]) {
		t.Errorf("no-op update changed resourceVersion from %v to %v", meta(cur)["resourceVersion"], meta(again)["resourceVersion"])
	}
}

func TestFinalizersAndDeletion(t *testing.T) {
	c := newClient(t)
	c.createNamespace("demo")
	const path = "/api/v1/namespaces/demo/configmaps"
	c.must(201, "POST", path, `{"metadata":{"name":"f","finalizers":["example.com/hold"]}}`)
	obj := c.must(200, "DELETE", path+"/f", nil)
	m := meta(obj)
	if m["deletionTimestamp"] == nil || m["deletionGracePeriodSeconds"] != float64(0) {
		t.Fatalf("DELETE with a finalizer: got metadata %v, want deletionTimestamp and grace 0", m)
	}
	// Deleting again changes nothing.
	again := c.must(200, "DELETE", path+"/f", nil)
	if meta(again)["resourceVersion"] != m["resourceVersion"] {
		t.Errorf("second DELETE wrote the object")
	}
	// No new finalizers once deleting.
	r := c.do("PATCH", path+"/f", `{"metadata":{"finalizers":["example.com/hold","example.com/new"]}}`, "Content-Type", "application/merge-patch+json")
	if r.code != 422 {
		t.Fatalf("adding a finalizer while deleting: got %d, want 422: %s", r.code, r.body)
	}
	// Removing the last finalizer deletes the object.
	c.must(200, "PATCH", path+"/f", `{"metadata":{"finalizers":null}}`, "Content-Type", "application/merge-patch+json")
	c.must(404, "GET", path+"/f", nil)

	// Preconditions.
	created := c.must(201, "POST", path, configMap("demo", "p", nil))
	r = c.do("DELETE", path+"/p", `{"preconditions":{"uid":"not-it"}}`)
	if r.code != 409 || !strings.Contains(string(r.body), "Precondition failed") {
		t.Fatalf("DELETE with a wrong uid precondition: got %d %s, want 409", r.code, r.body)
	}
	r = c.do("DELETE", path+"/p", `{"preconditions":{"resourceVersion":"1"}}`)
	if r.code != 409 {
		t.Fatalf("DELETE with a stale resourceVersion precondition: got %d, want 409", r.code)
	}
	st := c.must(200, "DELETE", path+"/p", map[string]any{"preconditions": map[string]any{"uid": meta(created)["uid"]}})
	if st["kind"] != "Status" || st["status"] != "Success" {
		t.Errorf("DELETE of a ConfigMap answered %v, want a Success Status", st)
	}
	c.must(404, "GET", path+"/p", nil)

	// dryRun stores nothing.
	c.must(201, "POST", path+"?dryRun=All", configMap("demo", "dry", nil))
	c.must(404, "GET", path+"/dry", nil)

	// deletecollection with a selector.
	for _, n := range []string{"a", "b", "c"} {
		env := "keep"
		if n != "c" {
			env = "drop"
		}
		c.must(201, "POST", path, map[string]any{"metadata": map[string]any{"name": n, "labels": map[string]any{"env": env}}})
	}
	c.must(200, "DELETE", path+"?labelSelector=env%3Ddrop", nil)
	list := c.must(200, "GET", path, nil)
	var names []string
	for _, it := range list["items"].([]any) {
		names = append(names, str(meta(it.(map[string]any))["name"]))
	}
	if strings.Join(names, ",") != "c" {
		t.Errorf("after deletecollection got %v, want [c]", names)
	}
}

func TestNamespaceTerminating(t *testing.T) {
	c := newClient(t)
	c.must(201, "POST", "/api/v1/namespaces", `{"metadata":{"name":"gone","finalizers":["example.com/hold"]}}`)
	c.must(200, "DELETE", "/api/v1/namespaces/gone", nil)
	r := c.do("POST", "/api/v1/namespaces/gone/configmaps", configMap("gone", "x", nil))
	if r.code != http.StatusForbidden || !strings.Contains(string(r.body), "NamespaceTerminating") {
		t.Fatalf("create in a terminating namespace: got %d %s, want 403 NamespaceTerminating", r.code, r.body)
	}
}

func TestCRDLifecycle(t *testing.T) {
	// The built-in controllers finish the deletion, as in setpoint server.
	c := clientFor(t, apiservertest.StartWith(t, apiservertest.Options{BuiltinControllers: true}))
	c.createNamespace("demo")
	crd := c.must(201, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", widgetCRD)
	conds := map[string]string{}
	for _, cd := range crd["status"].(map[string]any)["conditions"].([]any) {
		cm := cd.(map[string]any)
		conds[str(cm["type"])] = str(cm["status"])
	}
	if conds["NamesAccepted"] != "True" || conds["Established"] != "True" {
		t.Fatalf("CRD conditions %v, want NamesAccepted and Established True", conds)
	}
	// Served at once, with discovery updated.
	c.must(201, "POST", "/apis/example.com/v1/namespaces/demo/widgets", `{"metadata":{"name":"w1"}}`)
	disc := c.must(200, "GET", "/apis/example.com/v1", nil)
	if !strings.Contains(mustJSON(disc), `"widgets/status"`) {
		t.Errorf("discovery of example.com/v1 lacks widgets/status: %v", disc)
	}
	// Strategic merge patch is for built-in kinds only.
	r := c.do("PATCH", "/apis/example.com/v1/namespaces/demo/widgets/w1", `{}`, "Content-Type", "application/strategic-merge-patch+json")
	if r.code != 415 {
		t.Errorf("strategic merge patch on a custom resource: got %d, want 415", r.code)
	}
	// A bad CRD is refused.
	r = c.do("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", strings.Replace(widgetCRD, `"widgets.example.com"`, `"wrong.example.com"`, 1))
	if r.code != 422 {
		t.Errorf("CRD with a wrong name: got %d, want 422: %s", r.code, r.body)
	}
	// Deleting the CRD deletes its objects, then the CRD; an object with a
	// finalizer holds it, and no new objects are accepted meanwhile.
	const widgets = "/apis/example.com/v1/namespaces/demo/widgets"
	c.must(201, "POST", widgets, `{"metadata":{"name":"held","finalizers":["example.com/hold"]}}`)
	c.must(200, "DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com", nil)
	deadline := time.Now().Add(10 * time.Second)
	for meta(c.must(200, "GET", widgets+"/held", nil))["deletionTimestamp"] == nil {
		if time.Now().After(deadline) {
			t.Fatal("the held widget was not marked deleted within 10s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if r := c.do("POST", widgets, `{"metadata":{"name":"late"}}`); r.code != 405 {
		t.Errorf("create while the CRD terminates: got %d, want 405: %s", r.code, r.body)
	}
	c.must(200, "GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com", nil)
	c.must(200, "PATCH", widgets+"/held", `{"metadata":{"finalizers":null}}`, "Content-Type", "application/merge-patch+json")
	for c.do("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com", nil).code != 404 {
		if time.Now().After(deadline) {
			t.Fatal("CRD not deleted within 10s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.must(404, "GET", "/apis/example.com/v1/namespaces/demo/widgets", nil)
	if n := listLen(c.srv, "/registry/example.com/widgets/"); n != 0 {
		t.Errorf("%d widgets left in storage after the CRD was deleted", n)
	}
}

func TestNamespaceDeletion(t *testing.T) {
	// The built-in controllers finish the deletion, as in setpoint server.
	c := clientFor(t, apiservertest.StartWith(t, apiservertest.Options{BuiltinControllers: true}))
	ns := c.must(201, "POST", "/api/v1/namespaces", `{"metadata":{"name":"doomed"}}`)
	if fins := ns["spec"].(map[string]any)["finalizers"]; mustJSON(fins) != `["kubernetes"]` {
		t.Fatalf("new namespace spec.finalizers %v, want [kubernetes]", fins)
	}
	const cms = "/api/v1/namespaces/doomed/configmaps"
	c.must(201, "POST", cms, configMap("doomed", "plain", nil))
	c.must(201, "POST", cms, `{"metadata":{"name":"held","finalizers":["example.com/hold"]}}`)
	got := c.must(200, "DELETE", "/api/v1/namespaces/doomed", nil)
	if phase := got["status"].(map[string]any)["phase"]; phase != "Terminating" {
		t.Fatalf("deleted namespace phase %v, want Terminating", phase)
	}
	waitFor(t, "the plain ConfigMap to go", func() bool { return c.do("GET", cms+"/plain", nil).code == 404 })
	waitFor(t, "the held ConfigMap to be marked deleted", func() bool {
		return meta(c.must(200, "GET", cms+"/held", nil))["deletionTimestamp"] != nil
	})
	c.must(200, "GET", "/api/v1/namespaces/doomed", nil)
	c.must(200, "PATCH", cms+"/held", `{"metadata":{"finalizers":null}}`, "Content-Type", "application/merge-patch+json")
	waitFor(t, "the namespace to go", func() bool { return c.do("GET", "/api/v1/namespaces/doomed", nil).code == 404 })

	// The finalize subresource is the one way to change spec.finalizers.
	c.must(201, "POST", "/api/v1/namespaces", `{"metadata":{"name":"fin"}}`)
	upd := c.must(200, "PUT", "/api/v1/namespaces/fin", `{"metadata":{"name":"fin"},"spec":{"finalizers":[]}}`)
	if mustJSON(upd["spec"].(map[string]any)["finalizers"]) != `["kubernetes"]` {
		t.Errorf("a main update changed spec.finalizers: %v", upd["spec"])
	}
	fin := c.must(200, "PUT", "/api/v1/namespaces/fin/finalize", `{"metadata":{"name":"fin"},"spec":{"finalizers":[]}}`)
	if f, ok := fin["spec"].(map[string]any)["finalizers"]; ok && mustJSON(f) != "[]" {
		t.Errorf("finalize left spec.finalizers %v", f)
	}
	c.must(200, "DELETE", "/api/v1/namespaces/fin", nil)
	c.must(404, "GET", "/api/v1/namespaces/fin", nil)
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after 10s waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
