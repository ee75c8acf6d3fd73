package rbac

import (
	"errors"
	"reflect"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/setpoint-dev/setpoint/pkg/server/authorizer"
)

// world is a small cluster's RBAC objects.
func world() Objects {
	odd := roleBinding("dev", "odd-kind", "Role:view")
	odd.RoleRef.Kind = "Something"
	odd.Subjects = subjects([]string{"User:odd"})
	otherGroup := clusterBinding("other-api-group", "node-reader", "User:ella")
	otherGroup.Subjects[0].APIGroup = "example.com"
	return Objects{
		ClusterRoles: []rbacv1.ClusterRole{
			clusterRole("cluster-admin", rule("*", "*", "*", ""), urlRule("*", "*")),
			clusterRole("edit", rule("get,list,watch,create,update,patch,delete", "-,apps", "pods,deployments,configmaps", ""),
				rbacv1.PolicyRule{Verbs: list("get"), NonResourceURLs: list("/edit-url")}),
			clusterRole("node-reader", rule("get,list", "-", "nodes", "")),
			clusterRole("healthz", urlRule("get", "/healthz,/healthz/*")),
			clusterRole("scaler", rule("update", "apps", "*/scale", "")),
		},
		ClusterRoleBindings: []rbacv1.ClusterRoleBinding{
			clusterBinding("cluster-admin", "cluster-admin", "Group:system:masters"),
			clusterBinding("nodes", "node-reader", "User:nina", "Group:node-readers"),
			clusterBinding("nodes-again", "node-reader", "User:nina"),
			clusterBinding("health", "healthz", "Group:system:authenticated"),
			clusterBinding("ghost", "no-such-role", "User:carol"),
			clusterBinding("sa-with-ns", "node-reader", "ServiceAccount:kube-system/robot"),
			clusterBinding("sa-without-ns", "cluster-admin", "ServiceAccount:robot"),
			clusterBinding("all-sas", "scaler", "Group:system:serviceaccounts:dev"),
			clusterBinding("weird-subject", "cluster-admin", "Robot:bob"),
			otherGroup,
		},
		Roles: []rbacv1.Role{
			role("dev", "view", rule("get,list", "-", "pods,configmaps", ""), rule("get", "-", "secrets", "public")),
			role("prod", "view", rule("get", "-", "pods", "")),
		},
		RoleBindings: []rbacv1.RoleBinding{
			roleBinding("dev", "editors", "ClusterRole:edit", "User:alice", "Group:devs"),
			roleBinding("dev", "viewers", "Role:view", "User:bob", "ServiceAccount:ci", "ServiceAccount:other/ci"),
			roleBinding("dev", "missing", "Role:nope", "User:carol", "User:dave"),
			roleBinding("dev", "missing-too", "ClusterRole:nope", "User:dave"),
			roleBinding("dev", "missing-again", "Role:nope", "User:dave"),
			roleBinding("prod", "viewers", "Role:view", "User:carol"),
			odd,
		},
	}
}

func TestPolicyAuthorize(t *testing.T) {
	p := NewPolicy(world())
	sa := func(ns, name string) string { return "system:serviceaccount:" + ns + ":" + name }
	tests := []struct {
		name       string
		a          authorizer.Attributes
		wantAllow  bool
		wantReason string
		wantErr    bool
	}{
		{"masters by binding", as(res("delete", "", "nodes", "n1", ""), "root", "system:masters"), true,
			`RBAC: allowed by ClusterRoleBinding "cluster-admin" of ClusterRole "cluster-admin" to Group "system:masters"`, false},
		{"masters paths", as(path("post", "/anything"), "root", "system:masters"), true,
			`RBAC: allowed by ClusterRoleBinding "cluster-admin" of ClusterRole "cluster-admin" to Group "system:masters"`, false},
		{"cluster role by user", as(res("list", "", "nodes", "", ""), "nina"), true,
			`RBAC: allowed by ClusterRoleBinding "nodes" of ClusterRole "node-reader" to User "nina"`, false},
		{"cluster role by group", as(res("get", "", "nodes", "n1", ""), "someone", "node-readers"), true,
			`RBAC: allowed by ClusterRoleBinding "nodes" of ClusterRole "node-reader" to Group "node-readers"`, false},
		{"cluster rules apply in namespaces", as(res("list", "", "nodes", "", "dev"), "nina"), true,
			`RBAC: allowed by ClusterRoleBinding "nodes" of ClusterRole "node-reader" to User "nina"`, false},
		{"cluster role verb not granted", as(res("delete", "", "nodes", "n1", ""), "nina"), false, "", false},
		{"nobody", as(res("get", "", "pods", "p", "dev"), "nobody", "system:authenticated"), false, "", false},
		{"role binding to cluster role in its namespace", as(res("create", "apps", "deployments", "", "dev"), "alice"), true,
			`RBAC: allowed by RoleBinding "editors/dev" of ClusterRole "edit" to User "alice"`, false},
		{"role binding to cluster role by group", as(res("delete", "", "configmaps", "c", "dev"), "zed", "devs"), true,
			`RBAC: allowed by RoleBinding "editors/dev" of ClusterRole "edit" to Group "devs"`, false},
		{"role binding to cluster role not elsewhere", as(res("create", "apps", "deployments", "", "prod"), "alice"), false, "", false},
		{"role binding to cluster role not cluster-wide", as(res("list", "", "pods", "", ""), "alice"), false, "", false},
		{"role binding grants no paths", as(path("get", "/edit-url"), "alice"), false, "", false},
		{"role binding grants no paths even with a namespace", func() authorizer.Attributes {
			a := as(path("get", "/edit-url"), "alice")
			a.Namespace = "dev"
			return a
		}(), false, "", false},
		{"cluster binding grants paths", as(path("get", "/healthz/etcd"), "anyone", "system:authenticated"), true,
			`RBAC: allowed by ClusterRoleBinding "health" of ClusterRole "healthz" to Group "system:authenticated"`, false},
		{"path not granted", as(path("get", "/metrics"), "anyone", "system:authenticated"), false, "", false},
		{"role", as(res("list", "", "configmaps", "", "dev"), "bob"), true,
			`RBAC: allowed by RoleBinding "viewers/dev" of Role "view" to User "bob"`, false},
		{"role of the binding's namespace only", as(res("list", "", "configmaps", "", "prod"), "bob"), false, "", false},
		{"role resource name", as(res("get", "", "secrets", "public", "dev"), "bob"), true,
			`RBAC: allowed by RoleBinding "viewers/dev" of Role "view" to User "bob"`, false},
		{"role other resource name", as(res("get", "", "secrets", "private", "dev"), "bob"), false, "", false},
		{"role names never list", as(res("list", "", "secrets", "", "dev"), "bob"), false, "", false},
		{"service account defaults to the binding's namespace", as(res("get", "", "pods", "p", "dev"), sa("dev", "ci")), true,
			`RBAC: allowed by RoleBinding "viewers/dev" of Role "view" to ServiceAccount "ci/dev"`, false},
		{"service account of its own namespace", as(res("get", "", "pods", "p", "dev"), sa("other", "ci")), true,
			`RBAC: allowed by RoleBinding "viewers/dev" of Role "view" to ServiceAccount "ci/other"`, false},
		{"service account of another namespace", as(res("get", "", "pods", "p", "dev"), sa("prod", "ci")), false, "", false},
		{"service account in a cluster binding", as(res("get", "", "nodes", "n", ""), sa("kube-system", "robot")), true,
			`RBAC: allowed by ClusterRoleBinding "sa-with-ns" of ClusterRole "node-reader" to ServiceAccount "robot/kube-system"`, false},
		{"cluster binding service account without namespace names nobody", as(res("get", "", "secrets", "s", "default"), sa("default", "robot")), false, "", false},
		{"service account name is not a user name", as(res("get", "", "pods", "p", "dev"), "ci"), false, "", false},
		{"service account groups", as(res("update", "apps", "deployments/scale", "d", "dev"), sa("dev", "x"), "system:serviceaccounts", "system:serviceaccounts:dev"), true,
			`RBAC: allowed by ClusterRoleBinding "all-sas" of ClusterRole "scaler" to Group "system:serviceaccounts:dev"`, false},
		{"unknown subject kind names nobody", as(res("delete", "", "nodes", "n", ""), "bob", "bob"), false, "", false},
		{"user subject of another api group still matches", as(res("get", "", "nodes", "n", ""), "ella"), true,
			`RBAC: allowed by ClusterRoleBinding "other-api-group" of ClusterRole "node-reader" to User "ella"`, false},
		{"missing cluster role reported on denial", as(res("get", "", "pods", "p", ""), "carol"), false,
			`RBAC: clusterrole.rbac.authorization.k8s.io "no-such-role" not found`, true},
		{"missing roles reported in order, once", as(res("delete", "", "pods", "p", "dev"), "dave"), false,
			`RBAC: [role.rbac.authorization.k8s.io "nope" not found, clusterrole.rbac.authorization.k8s.io "nope" not found]`, true},
		{"missing roles do not deny other bindings", as(res("get", "", "pods", "p", "prod"), "carol"), true,
			`RBAC: allowed by RoleBinding "viewers/prod" of Role "view" to User "carol"`, false},
		{"missing cluster role and role", as(res("delete", "", "pods", "p", "dev"), "carol"), false,
			`RBAC: [clusterrole.rbac.authorization.k8s.io "no-such-role" not found, role.rbac.authorization.k8s.io "nope" not found]`, true},
		{"unsupported role ref kind", as(res("get", "", "pods", "p", "dev"), "odd"), false,
			`RBAC: unsupported role reference kind: "Something"`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			allowed, reason, err := p.Authorize(tt.a)
			if allowed != tt.wantAllow || reason != tt.wantReason || (err != nil) != tt.wantErr {
				t.Errorf("Authorize = %v, %q, %v; want %v, %q, error %v", allowed, reason, err, tt.wantAllow, tt.wantReason, tt.wantErr)
			}
		})
	}
}

func TestPolicyFirstSubjectNamed(t *testing.T) {
	p := NewPolicy(Objects{
		ClusterRoles:        []rbacv1.ClusterRole{clusterRole("r", rule("get", "-", "pods", ""))},
		ClusterRoleBindings: []rbacv1.ClusterRoleBinding{clusterBinding("b", "r", "Group:g1", "User:u", "Group:g2")},
	})
	_, reason, _ := p.Authorize(as(res("get", "", "pods", "", ""), "u", "g2"))
	if want := `RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "r" to User "u"`; reason != want {
		t.Errorf("reason = %q, want %q", reason, want)
	}
}

func TestPolicyErrorsTyped(t *testing.T) {
	p := NewPolicy(world())
	_, _, err := p.Authorize(as(res("delete", "", "pods", "p", "dev"), "dave"))
	var re *ResolutionError
	if !errors.As(err, &re) || len(re.Errs) != 3 {
		t.Fatalf("error %v: want a *ResolutionError of 3", err)
	}
	var nf *RoleNotFoundError
	if !errors.As(err, &nf) || nf.Kind != "Role" || nf.Namespace != "dev" || nf.Name != "nope" {
		t.Errorf("errors.As RoleNotFoundError = %+v", nf)
	}
}

func TestPolicyRulesFor(t *testing.T) {
	p := NewPolicy(world())
	w := world()
	nodeReader := w.ClusterRoles[2].Rules
	view := w.Roles[0].Rules
	tests := []struct {
		name      string
		user      authenticationv1.UserInfo
		namespace string
		want      []rbacv1.PolicyRule
		wantErr   string
	}{
		{"cluster-wide only", authenticationv1.UserInfo{Username: "nina"}, "", append(append([]rbacv1.PolicyRule{}, nodeReader...), nodeReader...), ""},
		{"namespace adds role bindings", authenticationv1.UserInfo{Username: "bob"}, "dev", view, ""},
		{"role bindings need the namespace", authenticationv1.UserInfo{Username: "bob"}, "", nil, ""},
		{"cluster and namespace", authenticationv1.UserInfo{Username: "someone", Groups: []string{"node-readers", "devs"}}, "dev",
			append(append([]rbacv1.PolicyRule{}, nodeReader...), w.ClusterRoles[1].Rules...), ""},
		{"errors with the rules found", authenticationv1.UserInfo{Username: "carol"}, "prod", w.Roles[1].Rules,
			`clusterrole.rbac.authorization.k8s.io "no-such-role" not found`},
		{"nobody", authenticationv1.UserInfo{Username: "nobody"}, "dev", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := p.RulesFor(tt.user, tt.namespace)
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if !reflect.DeepEqual(got, tt.want) || gotErr != tt.wantErr {
				t.Errorf("RulesFor = %v, %q; want %v, %q", got, gotErr, tt.want, tt.wantErr)
			}
		})
	}
}

// The policy keeps its own copy: changing the objects, or the rules
// RulesFor returned, changes no decision.
func TestPolicyImmutable(t *testing.T) {
	w := world()
	p := NewPolicy(w)
	a := as(res("list", "", "nodes", "", ""), "nina")
	w.ClusterRoles[2].Rules[0].Verbs[0] = "nothing"
	w.ClusterRoles[2].Rules[0].Verbs[1] = "nothing"
	w.ClusterRoleBindings[1].Subjects[0].Name = "someone-else"
	rules, _ := p.RulesFor(authenticationv1.UserInfo{Username: "nina"}, "")
	rules[0].Verbs[1] = "nothing"
	if allowed, _, _ := p.Authorize(a); !allowed {
		t.Error("a change to the objects or to returned rules changed the policy")
	}
}
