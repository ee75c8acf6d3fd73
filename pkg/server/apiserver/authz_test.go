package apiserver_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
	"github.com/setpoint-dev/setpoint/pkg/storage/memory"
)

// as impersonates user (and groups) through the admin's credentials, the
// way kubectl --as does.
func as(user string, groups ...string) []string {
	h := []string{"Impersonate-User", user}
	for _, g := range groups {
		h = append(h, "Impersonate-Group", g)
	}
	return h
}

func roleBinding(ns, name, role string, subjects ...map[string]any) map[string]any {
	return map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
		"subjects": subjects,
	}
}

func userSubject(name string) map[string]any {
	return map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": name}
}

func TestAuthorizationRefusals(t *testing.T) {
	c := newClient(t)
	c.createNamespace("team")
	tests := []struct {
		name          string
		method, path  string
		body          any
		headers       []string
		wantCode      int
		wantMessage   string
		wantKind      string
		wantGroupName string
	}{
		{
			name: "list in a namespace", method: "GET", path: "/api/v1/namespaces/team/configmaps", headers: as("alice"),
			wantCode: 403, wantKind: "configmaps",
			wantMessage: `configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "team"`,
		},
		{
			name: "get by name", method: "GET", path: "/apis/apps/v1/namespaces/team/deployments/web", headers: as("alice"),
			wantCode: 403, wantKind: "deployments", wantGroupName: "apps",
			wantMessage: `deployments.apps "web" is forbidden: User "alice" cannot get resource "deployments" in API group "apps" in the namespace "team"`,
		},
		{
			name: "subresource at cluster scope", method: "PUT", path: "/api/v1/nodes/n1/status", headers: as("alice"), body: map[string]any{},
			wantCode: 403, wantKind: "nodes",
			wantMessage: `nodes "n1" is forbidden: User "alice" cannot update resource "nodes/status" in API group "" at the cluster scope`,
		},
		{
			name: "watch", method: "GET", path: "/api/v1/pods?watch=true", headers: as("alice"),
			wantCode: 403, wantKind: "pods",
			wantMessage: `pods is forbidden: User "alice" cannot watch resource "pods" in API group "" at the cluster scope`,
		},
		{
			// Authorization comes before routing: no 404 tells a caller
			// without rights what exists.
			name: "a resource that does not exist", method: "GET", path: "/apis/example.com/v1/widgets", headers: as("alice"),
			wantCode: 403, wantKind: "widgets", wantGroupName: "example.com",
			wantMessage: `widgets.example.com is forbidden: User "alice" cannot list resource "widgets" in API group "example.com" at the cluster scope`,
		},
		{
			name: "a path", method: "GET", path: "/metrics", headers: as("alice"),
			wantCode:    403,
			wantMessage: `forbidden: User "alice" cannot get path "/metrics"`,
		},
		{
			name: "impersonating without the right", method: "GET", path: "/api/v1/namespaces", headers: as("alice", "system:masters"),
			wantCode: 200,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := c.do(tt.method, tt.path, tt.body, tt.headers...)
			if r.code != tt.wantCode {
				t.Fatalf("got %d, want %d: %s", r.code, tt.wantCode, r.body)
			}
			if tt.wantCode != 403 {
				return
			}
			st := r.json(t)
			details, _ := st["details"].(map[string]any)
			if got := str(st["message"]); got != tt.wantMessage {
				t.Errorf("got message %q, want %q", got, tt.wantMessage)
			}
			if str(st["reason"]) != "Forbidden" || str(st["kind"]) != "Status" {
				t.Errorf("got %s, want a Forbidden Status", r.body)
			}
			if got := str(details["kind"]); got != tt.wantKind {
				t.Errorf("got details.kind %q, want %q", got, tt.wantKind)
			}
			if got := str(details["group"]); got != tt.wantGroupName {
				t.Errorf("got details.group %q, want %q", got, tt.wantGroupName)
			}
		})
	}
}

func TestAuthorizationDiscoveryAndHealth(t *testing.T) {
	c := newClient(t)
	// system:discovery and system:public-info-viewer, bound to every
	// authenticated user by the default policy.
	for _, path := range []string{"/api", "/apis", "/api/v1", "/apis/apps/v1", "/version", "/openapi/v2", "/healthz", "/readyz?verbose", "/livez"} {
		if r := c.do("GET", path, nil, as("alice")...); r.code != http.StatusOK {
			t.Errorf("GET %s as alice: got %d, want 200: %s", path, r.code, r.body)
		}
	}
}

func TestBindingTakesEffectAtOnce(t *testing.T) {
	c := newClient(t)
	c.createNamespace("team")
	c.must(http.StatusForbidden, "GET", "/api/v1/namespaces/team/configmaps", nil, as("alice")...)
	c.must(http.StatusCreated, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": map[string]any{"name": "configmap-reader"},
		"rules": []any{map[string]any{"apiGroups": []any{""}, "resources": []any{"configmaps"}, "verbs": []any{"get", "list", "watch"}}},
	})
	c.must(http.StatusCreated, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings",
		roleBinding("team", "alice-view", "configmap-reader", userSubject("alice")))
	// The write's answer comes after the authorizer saw the binding.
	c.must(http.StatusOK, "GET", "/api/v1/namespaces/team/configmaps", nil, as("alice")...)
	c.must(http.StatusForbidden, "GET", "/api/v1/namespaces/default/configmaps", nil, as("alice")...)
	c.must(http.StatusForbidden, "POST", "/api/v1/namespaces/team/configmaps", configMap("team", "x", nil), as("alice")...)
	c.must(http.StatusOK, "DELETE", "/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings/alice-view", nil)
	c.must(http.StatusForbidden, "GET", "/api/v1/namespaces/team/configmaps", nil, as("alice")...)
}

func TestImpersonation(t *testing.T) {
	srv := apiservertest.Start(t)
	c := clientFor(t, srv)
	alice := certClient(t, srv, "alice")
	// alice may impersonate bob and the group dev, nothing else.
	c.must(http.StatusCreated, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": map[string]any{"name": "impersonate-bob"},
		"rules": []any{
			map[string]any{"apiGroups": []any{""}, "resources": []any{"users"}, "verbs": []any{"impersonate"}, "resourceNames": []any{"bob"}},
			map[string]any{"apiGroups": []any{""}, "resources": []any{"groups"}, "verbs": []any{"impersonate"}, "resourceNames": []any{"dev"}},
		},
	})
	c.must(http.StatusCreated, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": map[string]any{"name": "alice-impersonates"},
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "impersonate-bob"},
		"subjects": []any{userSubject("alice")},
	})
	whoami := map[string]any{"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}
	const reviews = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
	userOf := func(review map[string]any) map[string]any {
		status, _ := review["status"].(map[string]any)
		info, _ := status["userInfo"].(map[string]any)
		return info
	}

	info := userOf(alice.must(http.StatusCreated, "POST", reviews, whoami, as("bob", "dev")...))
	if str(info["username"]) != "bob" || mustJSON(info["groups"]) != `["dev","system:authenticated"]` {
		t.Errorf("alice as bob in dev: got %v, want bob in dev and system:authenticated", info)
	}

	refusals := []struct {
		headers []string
		want    string
	}{
		{as("carol"), `users "carol" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope`},
		{as("bob", "system:masters"), `groups "system:masters" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope`},
		{[]string{"Impersonate-User", "system:serviceaccount:team:builder"},
			`serviceaccounts "builder" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "team"`},
		{[]string{"Impersonate-User", "bob", "Impersonate-Extra-Scopes", "view"},
			`userextras.authentication.k8s.io "view" is forbidden: User "alice" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope`},
		{[]string{"Impersonate-User", "bob", "Impersonate-Uid", "1234"},
			`uids.authentication.k8s.io "1234" is forbidden: User "alice" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope`},
	}
	for _, tt := range refusals {
		r := alice.do("POST", reviews, whoami, tt.headers...)
		if r.code != http.StatusForbidden || str(r.json(t)["message"]) != tt.want {
			t.Errorf("%v: got %d %s, want 403 %q", tt.headers, r.code, r.body, tt.want)
		}
	}

	// The admin may impersonate anyone; a ServiceAccount gets its groups.
	info = userOf(c.must(http.StatusCreated, "POST", reviews, whoami, "Impersonate-User", "system:serviceaccount:team:builder"))
	if want := `["system:serviceaccounts","system:serviceaccounts:team","system:authenticated"]`; mustJSON(info["groups"]) != want {
		t.Errorf("service account groups: got %s, want %s", mustJSON(info["groups"]), want)
	}
	r := c.do("POST", reviews, whoami, "Impersonate-Group", "dev")
	if r.code != http.StatusInternalServerError || !strings.Contains(string(r.body), "without impersonating a user") {
		t.Errorf("group without user: got %d %s, want 500 naming the missing user", r.code, r.body)
	}
}

func TestDefaultPolicyIsReconciledAtStart(t *testing.T) {
	store := memory.New()
	srv, stop, err := apiservertest.Run(t.Context(), apiservertest.Options{Storage: store})
	if err != nil {
		t.Fatal(err)
	}
	c := clientFor(t, srv)
	const path = "/apis/rbac.authorization.k8s.io/v1/clusterroles/system:basic-user"
	role := c.must(http.StatusOK, "GET", path, nil)
	want := mustJSON(role["rules"])
	labels := mustJSON(meta(role)["labels"])
	// Someone narrows a default role and adds a rule of their own.
	role["rules"] = []any{map[string]any{"apiGroups": []any{"example.com"}, "resources": []any{"widgets"}, "verbs": []any{"get"}}}
	c.must(http.StatusOK, "PUT", path, role)
	stop()

	c = clientFor(t, apiservertest.StartWith(t, apiservertest.Options{Storage: store}))
	got := c.must(http.StatusOK, "GET", path, nil)
	rules := mustJSON(got["rules"])
	if !strings.HasPrefix(rules, `[{"apiGroups":["example.com"],"resources":["widgets"],"verbs":["get"]}`) {
		t.Errorf("the added rule is gone: %s", rules)
	}
	if !strings.Contains(rules, strings.Trim(want, "[]")[:40]) {
		t.Errorf("the default rules are not back: got %s, want them to include %s", rules, want)
	}
	if got := mustJSON(meta(got)["labels"]); got != labels {
		t.Errorf("labels: got %s, want %s", got, labels)
	}
}
