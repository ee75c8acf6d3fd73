package rbac

import (
	"context"
	"errors"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

// escalationWorld is the cluster the expected messages below were
// taken from, on kube-apiserver v1.33.13.
func escalationWorld() Objects {
	return Objects{
		ClusterRoles: []rbacv1.ClusterRole{
			clusterRole("rbachelper-podstar", rule("get", "-", "pods/*", ""), rule("update", "-", "*/status", ""), rule("get,list", "-", "configmaps", "a")),
			clusterRole("rbachelper-big", rule("get", "-", "secrets", ""), urlRule("get", "/metrics,/logs/*")),
		},
		ClusterRoleBindings: []rbacv1.ClusterRoleBinding{
			clusterBinding("rbachelper-podstar", "rbachelper-podstar", "User:rbachelper-alice"),
			clusterBinding("rbachelper-missing", "rbachelper-nope", "User:rbachelper-alice"),
			clusterBinding("rbachelper-missing2", "rbachelper-nope2", "Group:rbachelper-g"),
		},
		Roles: []rbacv1.Role{
			role("rbachelper-ns", "rolemaker", rule("create", "rbac.authorization.k8s.io", "roles,clusterroles,rolebindings,clusterrolebindings", ""), rule("get", "apps", "deployments", "")),
		},
		RoleBindings: []rbacv1.RoleBinding{
			roleBinding("rbachelper-ns", "rolemaker", "Role:rolemaker", "User:rbachelper-alice", "ServiceAccount:sa1"),
			roleBinding("rbachelper-ns", "missingrole", "Role:ghost", "User:rbachelper-bob"),
			roleBinding("rbachelper-ns", "rolemaker-bob", "Role:rolemaker", "User:rbachelper-bob"),
		},
	}
}

func TestConfirmNoEscalation(t *testing.T) {
	auth := NewAuthorizer(func(context.Context) (Objects, error) { return escalationWorld(), nil })
	big := escalationWorld().ClusterRoles[1].Rules
	tests := []struct {
		name      string
		user      authenticationv1.UserInfo
		namespace string
		resource  string
		rules     []rbacv1.PolicyRule
		want      string
	}{
		{
			name:      "role with several missing rules and two resolution errors",
			user:      authenticationv1.UserInfo{Username: "rbachelper-alice", Groups: []string{"rbachelper-g", "system:authenticated"}},
			namespace: "rbachelper-ns",
			resource:  "roles",
			rules: []rbacv1.PolicyRule{
				rule("get,list,watch", "apps", "deployments,replicasets", ""),
				rule("delete", "apps", "deployments", ""),
				rule("get,update", "-", "configmaps", "x,y"),
				rule("create", "-,batch", "jobs", ""),
			},
			want: `user "rbachelper-alice" (groups=["rbachelper-g" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["configmaps"], ResourceNames:["x"], Verbs:["get" "update"]}
{APIGroups:[""], Resources:["configmaps"], ResourceNames:["y"], Verbs:["get" "update"]}
{APIGroups:[""], Resources:["jobs"], Verbs:["create"]}
{APIGroups:["apps"], Resources:["deployments"], Verbs:["list" "watch" "delete"]}
{APIGroups:["apps"], Resources:["replicasets"], Verbs:["get" "list" "watch"]}
{APIGroups:["batch"], Resources:["jobs"], Verbs:["create"]}; resolution errors: [[roles.rbac.authorization.k8s.io "rbachelper-nope" not found, roles.rbac.authorization.k8s.io "rbachelper-nope2" not found]]`,
		},
		{
			name:      "one resolution error",
			user:      authenticationv1.UserInfo{Username: "rbachelper-alice", Groups: []string{"system:authenticated"}},
			namespace: "rbachelper-ns",
			resource:  "roles",
			rules:     []rbacv1.PolicyRule{rule("get,list", "apps", "deployments", "")},
			want: `user "rbachelper-alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:["apps"], Resources:["deployments"], Verbs:["list"]}; resolution errors: [roles.rbac.authorization.k8s.io "rbachelper-nope" not found]`,
		},
		{
			name:      "binding to a cluster role with urls",
			user:      authenticationv1.UserInfo{Username: "rbachelper-bob", Groups: []string{"system:authenticated"}},
			namespace: "rbachelper-ns",
			resource:  "rolebindings",
			rules:     big,
			want: `user "rbachelper-bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}
{NonResourceURLs:["/logs/*"], Verbs:["get"]}
{NonResourceURLs:["/metrics"], Verbs:["get"]}; resolution errors: [rolebindings.rbac.authorization.k8s.io "ghost" not found]`,
		},
		{
			name:      "authorizer wording without a resource",
			user:      authenticationv1.UserInfo{Username: "rbachelper-bob"},
			namespace: "rbachelper-ns",
			rules:     []rbacv1.PolicyRule{rule("get", "-", "secrets", "")},
			want: `user "rbachelper-bob" (groups=[]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}; resolution errors: [role.rbac.authorization.k8s.io "ghost" not found]`,
		},
		{
			name:  "no resolution errors",
			user:  authenticationv1.UserInfo{Username: "nobody", Groups: []string{"system:authenticated"}},
			rules: []rbacv1.PolicyRule{rule("get,get", "-", "pods", "")},
			want: `user "nobody" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["pods"], Verbs:["get" "get"]}`,
		},
		{
			name:      "held rules",
			user:      authenticationv1.UserInfo{Username: "rbachelper-alice"},
			namespace: "rbachelper-ns",
			resource:  "roles",
			rules:     []rbacv1.PolicyRule{rule("get", "apps", "deployments", ""), rule("update", "-", "pods/status", ""), rule("get", "-", "configmaps", "a")},
		},
		{
			name:     "cluster-wide rules only without a namespace",
			user:     authenticationv1.UserInfo{Username: "rbachelper-alice"},
			resource: "clusterroles",
			rules:    []rbacv1.PolicyRule{rule("get", "apps", "deployments", "")},
			want: `user "rbachelper-alice" (groups=[]) is attempting to grant RBAC permissions not currently held:
{APIGroups:["apps"], Resources:["deployments"], Verbs:["get"]}; resolution errors: [clusterroles.rbac.authorization.k8s.io "rbachelper-nope" not found]`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ConfirmNoEscalationOn(context.Background(), auth, tt.user, tt.namespace, tt.resource, tt.rules)
			got := ""
			if err != nil {
				got = err.Error()
				var esc *EscalationError
				if !errors.As(err, &esc) {
					t.Errorf("error %T is not an *EscalationError", err)
				}
			}
			if got != tt.want {
				t.Errorf("error:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestConfirmNoEscalationWithoutPolicy(t *testing.T) {
	boom := errors.New("store unavailable")
	auth := NewAuthorizer(func(context.Context) (Objects, error) { return Objects{}, boom })
	err := ConfirmNoEscalation(context.Background(), auth, authenticationv1.UserInfo{Username: "u"}, "", []rbacv1.PolicyRule{rule("get", "-", "pods", "")})
	var le *LoadError
	if !errors.As(err, &le) || !errors.Is(err, boom) {
		t.Errorf("error %v: want a *LoadError wrapping the loader's", err)
	}
}
