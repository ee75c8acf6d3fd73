package apiserver_test

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
)

const tableAccept = "application/json;as=Table;g=meta.k8s.io;v=v1"

func pod(name, nodeName string, containers ...map[string]any) map[string]any {
	spec := map[string]any{"containers": containers}
	if nodeName != "" {
		spec["nodeName"] = nodeName
	}
	return map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": name}, "spec": spec}
}

func container(name, image string) map[string]any {
	return map[string]any{"name": name, "image": image}
}

// tableOf returns a table's column names and its rows' cells.
func tableOf(t *testing.T, tbl map[string]any) (cols []string, rows [][]any) {
	t.Helper()
	defs, _ := tbl["columnDefinitions"].([]any)
	for _, d := range defs {
		cols = append(cols, str(d.(map[string]any)["name"]))
	}
	rs, _ := tbl["rows"].([]any)
	for _, r := range rs {
		rows = append(rows, r.(map[string]any)["cells"].([]any))
	}
	return cols, rows
}

// TestPodsAndNodes creates a node and pods through the API and reads them
// back as kubectl does: the defaulted object, tables and field
// selectors.
func TestPodsAndNodes(t *testing.T) {
	c := newClient(t)
	c.createNamespace("work")
	const pods = "/api/v1/namespaces/work/pods"

	created := c.must(http.StatusCreated, "POST", pods, pod("idle", "", container("app", "nginx")))
	spec := created["spec"].(map[string]any)
	status := created["status"].(map[string]any)
	checks := []struct {
		name      string
		got, want any
	}{
		{"restartPolicy", spec["restartPolicy"], "Always"},
		{"schedulerName", spec["schedulerName"], "default-scheduler"},
		{"serviceAccountName", spec["serviceAccountName"], "default"},
		{"imagePullPolicy", spec["containers"].([]any)[0].(map[string]any)["imagePullPolicy"], "Always"},
		{"phase", status["phase"], "Pending"},
		{"qosClass", status["qosClass"], "BestEffort"},
		{"generation", meta(created)["generation"], float64(1)},
	}
	for _, ch := range checks {
		if !reflect.DeepEqual(ch.got, ch.want) {
			t.Errorf("created pod %s: got %v, want %v", ch.name, ch.got, ch.want)
		}
	}

	c.must(http.StatusCreated, "POST", "/api/v1/nodes", map[string]any{
		"apiVersion": "v1", "kind": "Node", "metadata": map[string]any{"name": "n1", "labels": map[string]any{"node-role.kubernetes.io/worker": ""}},
	})
	c.must(http.StatusOK, "PATCH", "/api/v1/nodes/n1/status", `{"status":{"conditions":[{"type":"Ready","status":"True"}],"nodeInfo":{"kubeletVersion":"v1.33.0"}}}`,
		"Content-Type", "application/merge-patch+json")
	c.must(http.StatusCreated, "POST", pods, pod("bound", "n1", container("app", "nginx:1.27")))

	t.Run("node table", func(t *testing.T) {
		cols, rows := tableOf(t, c.must(http.StatusOK, "GET", "/api/v1/nodes", nil, "Accept", tableAccept))
		wantCols := []string{"Name", "Status", "Roles", "Age", "Version", "Internal-IP", "External-IP", "OS-Image", "Kernel-Version", "Container-Runtime"}
		if !reflect.DeepEqual(cols, wantCols) {
			t.Errorf("columns %v, want %v", cols, wantCols)
		}
		if len(rows) != 1 {
			t.Fatalf("rows %v, want one", rows)
		}
		got := []any{rows[0][0], rows[0][1], rows[0][2], rows[0][4]}
		if want := []any{"n1", "Ready", "worker", "v1.33.0"}; !reflect.DeepEqual(got, want) {
			t.Errorf("cells %v, want %v", got, want)
		}
	})

	t.Run("pod table", func(t *testing.T) {
		cols, rows := tableOf(t, c.must(http.StatusOK, "GET", pods, nil, "Accept", tableAccept))
		wantCols := []string{"Name", "Ready", "Status", "Restarts", "Age", "IP", "Node", "Nominated Node", "Readiness Gates"}
		if !reflect.DeepEqual(cols, wantCols) {
			t.Errorf("columns %v, want %v", cols, wantCols)
		}
		var got [][]any
		for _, r := range rows {
			got = append(got, []any{r[0], r[1], r[2], r[3], r[5], r[6]})
		}
		want := [][]any{{"bound", "0/1", "Pending", "0", "<none>", "n1"}, {"idle", "0/1", "Pending", "0", "<none>", "<none>"}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("rows %v, want %v", got, want)
		}
	})

	t.Run("field selectors", func(t *testing.T) {
		tests := []struct {
			selector string
			want     []string
		}{
			{"spec.nodeName=n1", []string{"bound"}},
			{"spec.nodeName=", []string{"idle"}},
			{"spec.nodeName!=,status.phase=Pending", []string{"bound"}},
			{"spec.hostNetwork=false", []string{"bound", "idle"}},
		}
		for _, tt := range tests {
			list := c.must(http.StatusOK, "GET", pods+"?fieldSelector="+tt.selector, nil)
			var got []string
			for _, it := range list["items"].([]any) {
				got = append(got, str(meta(it.(map[string]any))["name"]))
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%s: got %v, want %v", tt.selector, got, tt.want)
			}
		}
		nodes := c.must(http.StatusOK, "GET", "/api/v1/nodes?fieldSelector=spec.unschedulable=false", nil)
		if n := len(nodes["items"].([]any)); n != 1 {
			t.Errorf("schedulable nodes: got %d, want 1", n)
		}
	})

	t.Run("invalid pod", func(t *testing.T) {
		r := c.do("POST", pods, pod("bad", "", container("app", "")))
		want := `Pod "bad" is invalid: spec.containers[0].image: Required value`
		if r.code != http.StatusUnprocessableEntity || !strings.Contains(str(r.json(t)["message"]), want) {
			t.Errorf("got %d %s, want 422 %q", r.code, r.body, want)
		}
	})

	t.Run("pod update may not move it", func(t *testing.T) {
		r := c.do("PATCH", pods+"/bound", `{"spec":{"nodeName":"n2"}}`, "Content-Type", "application/merge-patch+json")
		want := "pod updates may not change fields other than `spec.containers[*].image`"
		if r.code != http.StatusUnprocessableEntity || !strings.Contains(str(r.json(t)["message"]), want) {
			t.Errorf("got %d %s, want 422 %q", r.code, r.body, want)
		}
		img := c.must(http.StatusOK, "PATCH", pods+"/bound", `{"spec":{"containers":[{"name":"app","image":"nginx:1.28"}]}}`,
			"Content-Type", "application/strategic-merge-patch+json")
		if got := img["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["image"]; got != "nginx:1.28" {
			t.Errorf("image after patch: %v", got)
		}
		if g := meta(img)["generation"]; g != float64(2) {
			t.Errorf("generation after an image change: got %v, want 2", g)
		}
	})
}

// TestPodTemplateApplyMergesContainers checks the list markers through
// server-side apply: two managers' containers merge by name, and their
// env lists by name, rather than one list replacing the other.
func TestPodTemplateApplyMergesContainers(t *testing.T) {
	c := newClient(t)
	c.createNamespace("tmpl")
	const path = "/api/v1/namespaces/tmpl/podtemplates/web"
	apply := func(manager, containers string) map[string]any {
		body := `{"apiVersion":"v1","kind":"PodTemplate","metadata":{"name":"web"},"template":{"spec":{"containers":` + containers + `}}}`
		return c.must(http.StatusOK, "PATCH", path+"?fieldManager="+manager, body, "Content-Type", "application/apply-patch+yaml")
	}
	c.must(http.StatusCreated, "PATCH", path+"?fieldManager=a", `{"apiVersion":"v1","kind":"PodTemplate","metadata":{"name":"web"},"template":{"spec":{"containers":[{"name":"app","image":"nginx","env":[{"name":"A","value":"1"}]}]}}}`,
		"Content-Type", "application/apply-patch+yaml")
	got := apply("b", `[{"name":"app","env":[{"name":"B","value":"2"}]},{"name":"log","image":"fluentd"}]`)
	type ctr struct {
		name, image string
		env         []string
	}
	var gotC []ctr
	for _, x := range got["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any) {
		m := x.(map[string]any)
		cc := ctr{name: str(m["name"]), image: str(m["image"])}
		envs, _ := m["env"].([]any)
		for _, e := range envs {
			cc.env = append(cc.env, str(e.(map[string]any)["name"]))
		}
		gotC = append(gotC, cc)
	}
	want := []ctr{{"app", "nginx", []string{"A", "B"}}, {"log", "fluentd", nil}}
	if !reflect.DeepEqual(gotC, want) {
		t.Errorf("containers %+v, want %+v", gotC, want)
	}
}
