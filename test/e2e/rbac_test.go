package e2e_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rbacWorld is what TestRBACMatrix grants, as a cluster admin would:
// alice edits in team, the group ops views everywhere, bob reads one
// ConfigMap, erin manages RBAC in team without holding what she might
// grant, dave holds nothing beyond the defaults.
const rbacWorld = `
apiVersion: v1
kind: Namespace
metadata: {name: team}
---
apiVersion: v1
kind: Namespace
metadata: {name: other}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: team}
data: {color: blue}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: private, namespace: team}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: alice-edit, namespace: team}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: edit}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: alice}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: ops-view}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: Group, name: ops}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: settings-reader, namespace: team}
rules:
- {apiGroups: [""], resources: [configmaps], resourceNames: [settings], verbs: [get]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: bob-settings, namespace: team}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: settings-reader}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: bob}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: rbac-manager}
rules:
- {apiGroups: [rbac.authorization.k8s.io], resources: [roles, rolebindings], verbs: [create, get, list]}
- {apiGroups: [""], resources: [configmaps], verbs: [get]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: erin-rbac, namespace: team}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: rbac-manager}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: erin}]
`

// userKubectl mints a kubeconfig for user with `setpoint kubeconfig`
// and returns a kubectl that uses it.
func userKubectl(t *testing.T, admin *kubectl, s *server, user string, groups ...string) *kubectl {
	t.Helper()
	file := filepath.Join(t.TempDir(), user+".kubeconfig")
	args := []string{"kubeconfig", "--user", user, "--data-dir", s.cfg.dataDir, "-o", file}
	for _, g := range groups {
		args = append(args, "--group", g)
	}
	if out, err := exec.Command(setpointBin, args...).CombinedOutput(); err != nil {
		t.Fatalf("setpoint %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return &kubectl{bin: admin.bin, kubeconfig: file, home: t.TempDir()}
}

// TestRBACMatrix checks, for a set of users and bindings, that `kubectl
// auth can-i` answers as kube-apiserver does and that the request itself
// then succeeds or is refused to match.
func TestRBACMatrix(t *testing.T) {
	bin := kubectlPath(t)
	srv := startFreshServer(t)
	admin := newKubectl(t, bin, srv)
	admin.createFile(t, rbacWorld)
	// edit and view get their rules from the aggregation controller.
	waitWithin(t, 30*time.Second, "view to aggregate configmaps", func() (string, bool) {
		rules := admin.ok(t, "get", "clusterrole", "view", "-o", "jsonpath={.rules}")
		return rules, strings.Contains(rules, "configmaps")
	})
	users := map[string]*kubectl{
		"alice": userKubectl(t, admin, srv, "alice", "dev"),
		"bob":   userKubectl(t, admin, srv, "bob"),
		"carol": userKubectl(t, admin, srv, "carol", "ops"),
		"dave":  userKubectl(t, admin, srv, "dave"),
		"erin":  userKubectl(t, admin, srv, "erin"),
	}
	tests := []struct {
		user  string
		canI  []string // kubectl auth can-i ...
		want  bool
		doing []string // the request itself; nil when can-i alone is checked
	}{
		{"alice", []string{"create", "configmaps", "-n", "team"}, true, []string{"create", "configmap", "made-by-alice", "-n", "team"}},
		{"alice", []string{"create", "configmaps", "-n", "other"}, false, []string{"create", "configmap", "made-by-alice", "-n", "other"}},
		{"alice", []string{"list", "secrets", "-n", "team"}, true, []string{"get", "secrets", "-n", "team"}},
		{"alice", []string{"create", "rolebindings", "-n", "team"}, false, []string{"create", "rolebinding", "x", "--clusterrole=view", "--user=alice", "-n", "team"}},
		{"alice", []string{"list", "nodes"}, false, []string{"get", "nodes"}},
		{"alice", []string{"patch", "deployments.apps", "-n", "team"}, true, nil},
		{"carol", []string{"list", "pods", "--all-namespaces"}, true, []string{"get", "pods", "--all-namespaces"}},
		{"carol", []string{"list", "secrets", "-n", "team"}, false, []string{"get", "secrets", "-n", "team"}},
		{"carol", []string{"delete", "configmaps", "-n", "team"}, false, []string{"delete", "configmap", "private", "-n", "team"}},
		{"carol", []string{"watch", "deployments.apps", "-n", "other"}, true, nil},
		{"bob", []string{"get", "configmap/settings", "-n", "team"}, true, []string{"get", "configmap", "settings", "-n", "team"}},
		{"bob", []string{"get", "configmap/private", "-n", "team"}, false, []string{"get", "configmap", "private", "-n", "team"}},
		{"bob", []string{"list", "configmaps", "-n", "team"}, false, []string{"get", "configmaps", "-n", "team"}},
		{"dave", []string{"get", "pods"}, false, []string{"get", "pods"}},
		{"dave", []string{"get", "/api"}, true, []string{"get", "--raw", "/api"}},
		{"dave", []string{"get", "/metrics"}, false, []string{"get", "--raw", "/metrics"}},
		{"dave", []string{"create", "selfsubjectaccessreviews.authorization.k8s.io"}, true, nil},
		{"erin", []string{"create", "roles", "-n", "team"}, true, nil},
		{"erin", []string{"create", "roles", "-n", "other"}, false, nil},
	}
	for _, tt := range tests {
		name := tt.user + " " + strings.Join(tt.canI, " ")
		k := users[tt.user]
		r := k.run(t, append([]string{"auth", "can-i"}, tt.canI...)...)
		got := strings.TrimSpace(r.stdout) == "yes"
		if got != tt.want || (got && r.err != nil) {
			t.Errorf("%s: can-i said %q (%v), want %v", name, strings.TrimSpace(r.stdout), r.err, tt.want)
		}
		// An admin asking on the user's behalf gets the same answer.
		asArgs := append([]string{"auth", "can-i", "--as", tt.user}, tt.canI...)
		if tt.user == "alice" {
			asArgs = append(asArgs, "--as-group", "dev")
		}
		if tt.user == "carol" {
			asArgs = append(asArgs, "--as-group", "ops")
		}
		if as := strings.TrimSpace(admin.run(t, asArgs...).stdout); (as == "yes") != tt.want {
			t.Errorf("%s: can-i --as said %q, want %v", name, as, tt.want)
		}
		if tt.doing == nil {
			continue
		}
		done := k.run(t, tt.doing...)
		switch {
		case tt.want && done.err != nil:
			t.Errorf("%s: allowed, but the request failed: %v", name, done)
		// kubectl get prints "Error from server (Forbidden): ...",
		// kubectl create "error: failed to create ...: ...".
		case !tt.want && !strings.Contains(done.stderr, "forbidden: User \""+tt.user+"\""):
			t.Errorf("%s: refused, but the request was not: %v", name, done)
		}
	}

	t.Run("refusal wording", func(t *testing.T) {
		got := strings.TrimSpace(users["bob"].fails(t, "get", "configmap", "private", "-n", "team"))
		want := `Error from server (Forbidden): configmaps "private" is forbidden: User "bob" cannot get resource "configmaps" in API group "" in the namespace "team"`
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	})

	t.Run("escalation", func(t *testing.T) {
		erin := users["erin"]
		// erin may create roles, but not grant what she lacks.
		got := erin.fails(t, "create", "role", "secret-reader", "--verb=get", "--resource=secrets", "-n", "team")
		want := `roles.rbac.authorization.k8s.io "secret-reader" is forbidden: user "erin" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:` +
			"\n" + `{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`
		if !strings.Contains(got, want) {
			t.Errorf("creating a role with more than erin holds: got %q, want %q", got, want)
		}
		erin.ok(t, "create", "role", "cm-reader", "--verb=get", "--resource=configmaps", "-n", "team")
		got = erin.fails(t, "create", "rolebinding", "erin-admin", "--clusterrole=admin", "--user=erin", "-n", "team")
		if !strings.Contains(got, `rolebindings.rbac.authorization.k8s.io "erin-admin" is forbidden: user "erin" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held`) {
			t.Errorf("binding admin: got %q, want an escalation refusal", got)
		}
		erin.ok(t, "create", "rolebinding", "dave-cm", "--role=cm-reader", "--user=dave", "-n", "team")
		// The binding holds as soon as its create is answered.
		users["dave"].ok(t, "get", "configmap", "settings", "-n", "team")
	})

	t.Run("whoami", func(t *testing.T) {
		tb := parseTable(t, users["alice"].ok(t, "auth", "whoami"))
		if row, ok := tb.row(map[string]string{"ATTRIBUTE": "Username"}); !ok || row["VALUE"] != "alice" {
			t.Errorf("whoami: %v, want Username alice", tb.rows)
		}
		if row, ok := tb.row(map[string]string{"ATTRIBUTE": "Groups"}); !ok || row["VALUE"] != "[dev system:authenticated]" {
			t.Errorf("whoami: %v, want Groups [dev system:authenticated]", tb.rows)
		}
	})
}
