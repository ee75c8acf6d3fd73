package registry

import (
	"context"
	"errors"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/server/rbac"
	"github.com/setpoint-dev/setpoint/pkg/server/user"
)

// objectRoles finds roles in a fixed set of RBAC objects, as the server
// finds them in what it serves.
type objectRoles rbac.Objects

func (o objectRoles) RoleRules(_ context.Context, namespace, name string) ([]rbacv1.PolicyRule, bool, error) {
	if namespace == "" {
		for _, r := range o.ClusterRoles {
			if r.Name == name {
				return r.Rules, true, nil
			}
		}
		return nil, false, nil
	}
	for _, r := range o.Roles {
		if r.Namespace == namespace && r.Name == name {
			return r.Rules, true, nil
		}
	}
	return nil, false, nil
}

// testPolicy is a small cluster: carol reads pods and writes roles and
// bindings in "team"; erin may escalate the cluster role "named"; frank
// may bind the cluster role "secrets"; gina holds everything but is not
// in system:masters.
func testPolicy() rbac.Objects {
	rule := func(verbs, groups, resources []string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{Verbs: verbs, APIGroups: groups, Resources: resources}
	}
	cluster := func(name string, rules ...rbacv1.PolicyRule) rbacv1.ClusterRole {
		return rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}
	}
	ref := func(kind, name string) rbacv1.RoleRef {
		return rbacv1.RoleRef{APIGroup: rbacGroup, Kind: kind, Name: name}
	}
	userSubject := func(name string) []rbacv1.Subject {
		return []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacGroup, Name: name}}
	}
	rbacWrite := []string{"create", "update", "patch"}
	return rbac.Objects{
		ClusterRoles: []rbacv1.ClusterRole{
			cluster("pod-reader", rule([]string{"get", "list"}, []string{""}, []string{"pods"})),
			cluster("secrets", rule([]string{"get"}, []string{""}, []string{"secrets"})),
			cluster("rbac-writer", rule(rbacWrite, []string{rbacGroup}, []string{"roles", "rolebindings", "clusterroles", "clusterrolebindings"})),
			cluster("escalate-named", rbacv1.PolicyRule{Verbs: []string{"escalate"}, APIGroups: []string{rbacGroup}, Resources: []string{"clusterroles"}, ResourceNames: []string{"named"}}),
			cluster("bind-secrets", rbacv1.PolicyRule{Verbs: []string{"bind"}, APIGroups: []string{rbacGroup}, Resources: []string{"clusterroles"}, ResourceNames: []string{"secrets"}}),
			cluster("everything", fullAuthority...),
		},
		Roles: []rbacv1.Role{{ObjectMeta: metav1.ObjectMeta{Name: "reader", Namespace: "team"}, Rules: []rbacv1.PolicyRule{rule([]string{"get"}, []string{""}, []string{"pods"})}}},
		RoleBindings: []rbacv1.RoleBinding{
			{ObjectMeta: metav1.ObjectMeta{Name: "carol-pods", Namespace: "team"}, RoleRef: ref("ClusterRole", "pod-reader"), Subjects: userSubject("carol")},
			{ObjectMeta: metav1.ObjectMeta{Name: "carol-rbac", Namespace: "team"}, RoleRef: ref("ClusterRole", "rbac-writer"), Subjects: userSubject("carol")},
		},
		ClusterRoleBindings: []rbacv1.ClusterRoleBinding{
			{ObjectMeta: metav1.ObjectMeta{Name: "erin"}, RoleRef: ref("ClusterRole", "escalate-named"), Subjects: userSubject("erin")},
			{ObjectMeta: metav1.ObjectMeta{Name: "frank"}, RoleRef: ref("ClusterRole", "bind-secrets"), Subjects: userSubject("frank")},
			{ObjectMeta: metav1.ObjectMeta{Name: "gina"}, RoleRef: ref("ClusterRole", "everything"), Subjects: userSubject("gina")},
		},
	}
}

// guarded returns the RBAC resources checked against testPolicy by a
// real RBAC authorizer.
func guarded(t *testing.T) map[string]*Resource {
	t.Helper()
	objs := testPolicy()
	a := rbac.NewAuthorizer(func(context.Context) (rbac.Objects, error) { return objs, nil })
	out := map[string]*Resource{}
	for _, r := range BuiltinWith(BuiltinOptions{Authorizer: a, Rules: a, Roles: objectRoles(objs)}) {
		if r.Group == rbacGroup {
			out[r.Plural] = r
		}
	}
	return out
}

func caller(name string, groups ...string) context.Context {
	return user.WithInfo(context.Background(), authenticationv1.UserInfo{Username: name, Groups: append(groups, "system:authenticated")})
}

// TestRBACEscalation checks who may write which roles and bindings, with
// the refusals kube-apiserver v1.33 words (the oracle's, for the same
// policy).
func TestRBACEscalation(t *testing.T) {
	res := guarded(t)
	const (
		podRole    = `{"metadata":{"name":"r","namespace":"team"},"rules":[{"verbs":["get"],"apiGroups":[""],"resources":["pods"]}]}`
		secretRole = `{"metadata":{"name":"r","namespace":"team"},"rules":[{"verbs":["get","list"],"apiGroups":[""],"resources":["pods","secrets"]}]}`
	)
	tests := []struct {
		name     string
		ctx      context.Context
		plural   string
		urlName  string // the request URL's name: empty for a POST
		body     string
		old      string // the stored object of an update
		want     string // the refusal's message; "" allows
		wantType error
	}{
		{name: "rules held", ctx: caller("carol"), plural: "roles", body: podRole},
		{
			name: "rules not held", ctx: caller("carol"), plural: "roles", body: secretRole,
			want: "user \"carol\" (groups=[\"system:authenticated\"]) is attempting to grant RBAC permissions not currently held:\n" +
				`{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}`,
			wantType: &ForbiddenError{},
		},
		{
			name: "rules held elsewhere only", ctx: caller("carol"), plural: "roles",
			body: `{"metadata":{"name":"r","namespace":"other"},"rules":[{"verbs":["get"],"apiGroups":[""],"resources":["pods"]}]}`,
			want: "user \"carol\" (groups=[\"system:authenticated\"]) is attempting to grant RBAC permissions not currently held:\n" +
				`{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`,
			wantType: &ForbiddenError{},
		},
		{name: "system:masters", ctx: caller("root", "system:masters"), plural: "roles", body: secretRole},
		{
			name: "escalate on the name, by a POST", ctx: caller("erin"), plural: "clusterroles",
			body: `{"metadata":{"name":"named"},"rules":[{"verbs":["*"],"apiGroups":["*"],"resources":["*"]}]}`,
			want: "user \"erin\" (groups=[\"system:authenticated\"]) is attempting to grant RBAC permissions not currently held:\n" +
				`{APIGroups:["*"], Resources:["*"], Verbs:["*"]}`,
			wantType: &ForbiddenError{},
		},
		{
			name: "escalate on the name, by an apply", ctx: caller("erin"), plural: "clusterroles", urlName: "named",
			body: `{"metadata":{"name":"named"},"rules":[{"verbs":["*"],"apiGroups":["*"],"resources":["*"]}]}`,
		},
		{
			name: "aggregation needs full authority", ctx: caller("carol"), plural: "clusterroles",
			body: `{"metadata":{"name":"agg"},"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"a":"b"}}]}}`,
			want: errAggregation, wantType: &ForbiddenError{},
		},
		{
			name: "aggregation with full authority", ctx: caller("gina"), plural: "clusterroles",
			body: `{"metadata":{"name":"agg"},"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"a":"b"}}]}}`,
		},
		{
			name: "removing aggregation needs full authority", ctx: caller("carol"), plural: "clusterroles", urlName: "agg",
			old:  `{"metadata":{"name":"agg","resourceVersion":"5"},"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"a":"b"}}]}}`,
			body: `{"metadata":{"name":"agg","resourceVersion":"5"}}`,
			want: errAggregation, wantType: &ForbiddenError{},
		},
		{
			name: "only the collector's fields change", ctx: caller("carol"), plural: "roles", urlName: "r",
			old:  `{"metadata":{"name":"r","namespace":"team","resourceVersion":"5","uid":"u"},"rules":[{"verbs":["get"],"apiGroups":[""],"resources":["secrets"]}]}`,
			body: `{"metadata":{"name":"r","namespace":"team","resourceVersion":"5","uid":"u","finalizers":["x/y"],"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"c","uid":"u1"}]},"rules":[{"verbs":["get"],"apiGroups":[""],"resources":["secrets"]}]}`,
		},
		{
			name: "a label changes", ctx: caller("carol"), plural: "roles", urlName: "r",
			old:  `{"metadata":{"name":"r","namespace":"team","resourceVersion":"5","uid":"u"},"rules":[{"verbs":["get"],"apiGroups":[""],"resources":["secrets"]}]}`,
			body: `{"metadata":{"name":"r","namespace":"team","resourceVersion":"5","uid":"u","labels":{"a":"b"}},"rules":[{"verbs":["get"],"apiGroups":[""],"resources":["secrets"]}]}`,
			want: "user \"carol\" (groups=[\"system:authenticated\"]) is attempting to grant RBAC permissions not currently held:\n" +
				`{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`,
			wantType: &ForbiddenError{},
		},
		{
			// kube compares the request as sent: without the stored
			// resourceVersion it is a change.
			name: "a put without resourceVersion", ctx: caller("carol"), plural: "roles", urlName: "r",
			old:  `{"metadata":{"name":"r","namespace":"team","resourceVersion":"5","uid":"u"},"rules":[{"verbs":["get"],"apiGroups":[""],"resources":["secrets"]}]}`,
			body: `{"metadata":{"name":"r","namespace":"team","uid":"u"},"rules":[{"verbs":["get"],"apiGroups":[""],"resources":["secrets"]}]}`,
			want: "user \"carol\" (groups=[\"system:authenticated\"]) is attempting to grant RBAC permissions not currently held:\n" +
				`{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`,
			wantType: &ForbiddenError{},
		},
		{
			name: "bind a role whose rules are held", ctx: caller("carol"), plural: "rolebindings",
			body: `{"metadata":{"name":"b","namespace":"team"},"roleRef":{"kind":"ClusterRole","name":"pod-reader"},"subjects":[{"kind":"User","name":"dave"}]}`,
		},
		{
			name: "bind a namespace role whose rules are held", ctx: caller("carol"), plural: "rolebindings",
			body: `{"metadata":{"name":"b","namespace":"team"},"roleRef":{"kind":"Role","name":"reader"},"subjects":[{"kind":"User","name":"dave"}]}`,
		},
		{
			name: "bind a role whose rules are not held", ctx: caller("carol"), plural: "rolebindings",
			body: `{"metadata":{"name":"b","namespace":"team"},"roleRef":{"kind":"ClusterRole","name":"secrets"},"subjects":[{"kind":"User","name":"dave"}]}`,
			want: "user \"carol\" (groups=[\"system:authenticated\"]) is attempting to grant RBAC permissions not currently held:\n" +
				`{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`,
			wantType: &ForbiddenError{},
		},
		{
			name: "bind permission on the role", ctx: caller("frank"), plural: "clusterrolebindings",
			body: `{"metadata":{"name":"b"},"roleRef":{"kind":"ClusterRole","name":"secrets"},"subjects":[{"kind":"User","name":"dave"}]}`,
		},
		{
			name: "bind permission on another role", ctx: caller("frank"), plural: "clusterrolebindings",
			body: `{"metadata":{"name":"b"},"roleRef":{"kind":"ClusterRole","name":"pod-reader"},"subjects":[{"kind":"User","name":"dave"}]}`,
			want: "user \"frank\" (groups=[\"system:authenticated\"]) is attempting to grant RBAC permissions not currently held:\n" +
				`{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}`,
			wantType: &ForbiddenError{},
		},
		{
			name: "a missing role", ctx: caller("carol"), plural: "rolebindings",
			body:     `{"metadata":{"name":"b","namespace":"team"},"roleRef":{"kind":"ClusterRole","name":"nope"},"subjects":[{"kind":"User","name":"dave"}]}`,
			want:     "nope not found",
			wantType: &NotFoundError{},
		},
		{
			name: "an unknown kind of role", ctx: caller("carol"), plural: "rolebindings",
			body:     `{"metadata":{"name":"b","namespace":"team"},"roleRef":{"kind":"Foo","name":"nope"},"subjects":[{"kind":"User","name":"dave"}]}`,
			want:     `unsupported role reference kind: "Foo"`,
			wantType: &InternalRefusalError{},
		},
		{
			name: "a cluster binding of a namespace role", ctx: caller("carol"), plural: "clusterrolebindings",
			body:     `{"metadata":{"name":"b"},"roleRef":{"kind":"Role","name":"reader"},"subjects":[{"kind":"User","name":"dave"}]}`,
			want:     "Namespace parameter required.",
			wantType: &BadRequestError{},
		},
		{
			name: "the collector's fields of a binding, its groups defaulted", ctx: caller("carol"), plural: "rolebindings", urlName: "b",
			old:  `{"metadata":{"name":"b","namespace":"team","resourceVersion":"5"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"secrets"},"subjects":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"dave"}]}`,
			body: `{"metadata":{"name":"b","namespace":"team","resourceVersion":"5","finalizers":["x/y"]},"roleRef":{"kind":"ClusterRole","name":"secrets"},"subjects":[{"kind":"User","name":"dave"}]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := res[tt.plural]
			obj := rbacObject(t, tt.plural, tt.body)
			var old map[string]any
			if tt.old != "" {
				old = rbacObject(t, tt.plural, tt.old)
			}
			err := r.Strategy.(AdmitStrategy).Admit(tt.ctx, tt.urlName, obj, old)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want == "":
				return
			case err == nil:
				t.Fatalf("allowed, want %q", tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("refusal\n got %q\nwant %q", err.Error(), tt.want)
			}
			if got, want := errorType(err), errorType(tt.wantType); got != want {
				t.Errorf("refusal is a %s, want a %s", got, want)
			}
		})
	}
}

func errorType(err error) string {
	var (
		forbidden *ForbiddenError
		notFound  *NotFoundError
		refused   *InternalRefusalError
		bad       *BadRequestError
	)
	switch {
	case errors.As(err, &forbidden):
		return "ForbiddenError"
	case errors.As(err, &notFound):
		return "NotFoundError"
	case errors.As(err, &refused):
		return "InternalRefusalError"
	case errors.As(err, &bad):
		return "BadRequestError"
	}
	return "other error"
}

// TestRBACUnguarded: without an authorizer no write is checked.
func TestRBACUnguarded(t *testing.T) {
	obj := rbacObject(t, "roles", `{"metadata":{"name":"r","namespace":"team"},"rules":[{"verbs":["*"],"apiGroups":["*"],"resources":["*"]}]}`)
	if err := builtin(rbacGroup, "roles").Strategy.(AdmitStrategy).Admit(caller("nobody"), "", obj, nil); err != nil {
		t.Errorf("refused without an authorizer: %v", err)
	}
}
