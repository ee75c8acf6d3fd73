package filters

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/server/rbac"
	"github.com/setpoint-dev/setpoint/pkg/server/rbac/bootstrap"
	"github.com/setpoint-dev/setpoint/pkg/server/user"
)

// defaultPolicy is a cluster's default policy with alice bound to a role
// reading ConfigMaps in the namespace team.
func defaultPolicy() *rbac.Authorizer {
	p := bootstrap.Default()
	o := rbac.Objects{ClusterRoles: p.ClusterRoles, ClusterRoleBindings: p.ClusterRoleBindings, Roles: p.Roles, RoleBindings: p.RoleBindings}
	o.Roles = append(o.Roles, rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "reader"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch"}}},
	})
	o.RoleBindings = append(o.RoleBindings, rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "alice-reads"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "reader"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: "alice"}},
	})
	return rbac.NewAuthorizer(func(context.Context) (rbac.Objects, error) { return o, nil })
}

var alice = authenticationv1.UserInfo{Username: "alice", Groups: []string{"system:authenticated"}}

func TestAuthorize(t *testing.T) {
	az := defaultPolicy()
	tests := []struct {
		method, url string
		user        authenticationv1.UserInfo
		wantCode    int32 // 0: allowed
		wantMessage string
	}{
		{"GET", "/api/v1/namespaces/team/configmaps?limit=500", alice, 0, ""},
		{"GET", "/api/v1/namespaces/team/configmaps/x", alice, 0, ""},
		{"GET", "/api/v1/namespaces/team/configmaps?watch=1", alice, 0, ""},
		{"GET", "/api", alice, 0, ""},
		{"GET", "/version", alice, 0, ""},
		{"POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", alice, 0, ""},
		{"DELETE", "/api/v1/namespaces/team/configmaps/x", alice, 403,
			`configmaps "x" is forbidden: User "alice" cannot delete resource "configmaps" in API group "" in the namespace "team"`},
		{"GET", "/api/v1/namespaces/other/configmaps", alice, 403,
			`configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "other"`},
		{"GET", "/debug/pprof/", alice, 403, `forbidden: User "alice" cannot get path "/debug/pprof/"`},
		{"GET", "/api/v1/nodes", authenticationv1.UserInfo{Username: "<b>", Groups: []string{"system:authenticated"}}, 403,
			`nodes is forbidden: User "&lt;b&gt;" cannot list resource "nodes" in API group "" at the cluster scope`},
		{"DELETE", "/api/v1/nodes/n1", authenticationv1.UserInfo{Username: "root", Groups: []string{"system:masters"}}, 0, ""},
	}
	for _, tt := range tests {
		r := httptest.NewRequest(tt.method, tt.url, nil)
		r = r.WithContext(user.WithInfo(r.Context(), tt.user))
		st := Authorize(r, az)
		switch {
		case tt.wantCode == 0 && st != nil:
			t.Errorf("%s %s as %s: refused: %s", tt.method, tt.url, tt.user.Username, st.Status.Message)
		case tt.wantCode != 0 && st == nil:
			t.Errorf("%s %s as %s: allowed, want %d", tt.method, tt.url, tt.user.Username, tt.wantCode)
		case st != nil && (st.Status.Code != tt.wantCode || st.Status.Message != tt.wantMessage):
			t.Errorf("%s %s as %s: got %d %q, want %d %q", tt.method, tt.url, tt.user.Username, st.Status.Code, st.Status.Message, tt.wantCode, tt.wantMessage)
		}
	}
}

// BenchmarkAuthorize is what authorization adds to a request of a user
// RBAC decides for, with the decision cached: the URL's attributes and
// the cached decision.
func BenchmarkAuthorize(b *testing.B) {
	az := defaultPolicy()
	r := httptest.NewRequest(http.MethodGet, "/api/v1/namespaces/team/configmaps?limit=500&resourceVersion=0", nil)
	r = r.WithContext(user.WithInfo(r.Context(), alice))
	if st := Authorize(r, az); st != nil {
		b.Fatal(st)
	}
	b.ReportAllocs()
	for b.Loop() {
		if st := Authorize(r, az); st != nil {
			b.Fatal(st)
		}
	}
}
