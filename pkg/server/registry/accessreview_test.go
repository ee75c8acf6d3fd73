package registry

import (
	"context"
	"errors"
	"reflect"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/server/rbac"
)

// reviews returns the access review resources answered by a real RBAC
// authorizer over objs, or by none when objs is nil.
func reviews(t *testing.T, objs *rbac.Objects) map[string]*Resource {
	t.Helper()
	var o BuiltinOptions
	if objs != nil {
		a := rbac.NewAuthorizer(func(context.Context) (rbac.Objects, error) { return *objs, nil })
		o = BuiltinOptions{Authorizer: a, Rules: a, Roles: objectRoles(*objs)}
	}
	out := map[string]*Resource{}
	for _, r := range BuiltinWith(o) {
		if r.Group == authorizationGroup {
			out[r.Plural] = r
		}
	}
	return out
}

// review decodes body as a request to the review resource and answers
// it as the caller in ctx.
func review(t *testing.T, ctx context.Context, r *Resource, body string) (map[string]any, error) {
	t.Helper()
	obj, _, err := r.Decode([]byte(body), FieldStrict)
	if err != nil {
		t.Fatalf("decoding %s: %v", body, err)
	}
	return r.Strategy.(Creater).Create(ctx, obj)
}

// TestAccessReviewValidation: the wanted messages are kube-apiserver
// v1.33.13's answers to the same bodies (without the managed fields the
// store adds first).
func TestAccessReviewValidation(t *testing.T) {
	res := reviews(t, nil)
	const emptyMeta = `v1.ObjectMeta{Name:"x", GenerateName:"", Namespace:"", SelfLink:"", UID:"", ResourceVersion:"", Generation:0, ` +
		`CreationTimestamp:time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC), DeletionTimestamp:<nil>, DeletionGracePeriodSeconds:(*int64)(nil), ` +
		`Labels:map[string]string(nil), Annotations:map[string]string(nil), OwnerReferences:[]v1.OwnerReference(nil), Finalizers:[]string(nil), ` +
		`ManagedFields:[]v1.ManagedFieldsEntry(nil)}`
	tests := []struct {
		name, plural, body string
		want               string
	}{
		{
			name: "empty self review with a name", plural: "selfsubjectaccessreviews",
			body: `{"metadata":{"name":"x"},"spec":{}}`,
			want: `[spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified, metadata: Invalid value: ` + emptyMeta + `: must be empty]`,
		},
		{
			name: "no one to ask about", plural: "subjectaccessreviews",
			body: `{"spec":{"nonResourceAttributes":{"path":"/x","verb":"get"}}}`,
			want: `spec.user: Invalid value: "": at least one of user or group must be specified`,
		},
		{
			name: "both kinds of attributes, bad selectors", plural: "subjectaccessreviews",
			body: `{"spec":{"groups":["g"],"resourceAttributes":{"fieldSelector":{},"labelSelector":{"rawSelector":"a","requirements":[{"key":"a","operator":"Foo"}]}},"nonResourceAttributes":{"path":"/x","verb":"get"}}}`,
			want: `[spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/x", Verb:"get"}: cannot be specified in combination with resourceAttributes, ` +
				`spec.resourceAttributes.fieldSelector.requirements: Required value: when spec.resourceAttributes.fieldSelector is specified, requirements or rawSelector is required, ` +
				`spec.resourceAttributes.labelSelector.rawSelector: Invalid value: "a": may not specified at the same time as requirements]`,
		},
		{
			name: "local review elsewhere", plural: "localsubjectaccessreviews",
			body: `{"metadata":{"namespace":"default"},"spec":{"user":"u","resourceAttributes":{"namespace":"other","verb":"get","resource":"pods"}}}`,
			want: `spec.resourceAttributes.namespace: Invalid value: "other": must match metadata.namespace`,
		},
		{
			name: "local review of a path", plural: "localsubjectaccessreviews",
			body: `{"metadata":{"namespace":"default"},"spec":{"user":"u","nonResourceAttributes":{"path":"/x","verb":"get"}}}`,
			want: `spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/x", Verb:"get"}: disallowed on this kind of request`,
		},
		{
			name: "local review in its namespace", plural: "localsubjectaccessreviews",
			body: `{"metadata":{"namespace":"default"},"spec":{"user":"u","resourceAttributes":{"namespace":"default","verb":"get","resource":"pods"}}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := review(t, context.Background(), res[tt.plural], tt.body)
			var invalid *InvalidError
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want == "":
				return
			case !errors.As(err, &invalid):
				t.Fatalf("error %v, want an *InvalidError", err)
			}
			if got := aggregate(invalid.Errs); got != tt.want {
				t.Errorf("errors\n got %s\nwant %s", got, tt.want)
			}
			if invalid.Kind != reviewKind || invalid.Name != "" {
				t.Errorf("invalid %v %q, want the group alone and no name, as kube", invalid.Kind, invalid.Name)
			}
		})
	}
}

// TestAccessReviewAnswers asks a real RBAC authorizer, as kube's reviews
// ask theirs.
func TestAccessReviewAnswers(t *testing.T) {
	objs := testPolicy()
	res := reviews(t, &objs)
	tests := []struct {
		name, plural string
		ctx          context.Context
		body         string
		want         map[string]any
	}{
		{
			name: "allowed", plural: "subjectaccessreviews", ctx: context.Background(),
			body: `{"spec":{"user":"carol","resourceAttributes":{"namespace":"team","verb":"list","resource":"pods"}}}`,
			want: map[string]any{"allowed": true, "reason": `RBAC: allowed by RoleBinding "carol-pods/team" of ClusterRole "pod-reader" to User "carol"`},
		},
		{
			name: "not allowed", plural: "subjectaccessreviews", ctx: context.Background(),
			body: `{"spec":{"user":"carol","resourceAttributes":{"namespace":"team","verb":"delete","resource":"pods"}}}`,
			want: map[string]any{"allowed": false},
		},
		{
			name: "by group", plural: "subjectaccessreviews", ctx: context.Background(),
			body: `{"spec":{"user":"x","groups":["system:masters"],"nonResourceAttributes":{"path":"/healthz","verb":"get"}}}`,
			want: map[string]any{"allowed": true},
		},
		{
			name: "unreadable selectors", plural: "subjectaccessreviews", ctx: context.Background(),
			body: `{"spec":{"user":"bob","resourceAttributes":{"verb":"get","resource":"pods","namespace":"default","fieldSelector":{"rawSelector":"a=b,,"},"labelSelector":{"rawSelector":"x in (a"}}}}`,
			want: map[string]any{"allowed": false, "evaluationError": "spec.resourceAttributes.labelSelector ignored due to parse error"},
		},
		{
			name: "partly readable requirements", plural: "subjectaccessreviews", ctx: context.Background(),
			body: `{"spec":{"user":"bob","resourceAttributes":{"verb":"list","resource":"pods","fieldSelector":{"requirements":[{"key":"a","operator":"In","values":["b"]},{"key":"c","operator":"Exists"}]}}}}`,
			want: map[string]any{"allowed": false, "evaluationError": "spec.resourceAttributes.fieldSelector partially ignored due to parse error"},
		},
		{
			name: "self", plural: "selfsubjectaccessreviews", ctx: caller("carol"),
			body: `{"spec":{"resourceAttributes":{"namespace":"team","verb":"create","group":"rbac.authorization.k8s.io","resource":"roles"}}}`,
			want: map[string]any{"allowed": true, "reason": `RBAC: allowed by RoleBinding "carol-rbac/team" of ClusterRole "rbac-writer" to User "carol"`},
		},
		{
			name: "local", plural: "localsubjectaccessreviews", ctx: context.Background(),
			body: `{"metadata":{"namespace":"team"},"spec":{"user":"carol","resourceAttributes":{"namespace":"team","verb":"get","resource":"pods"}}}`,
			want: map[string]any{"allowed": true, "reason": `RBAC: allowed by RoleBinding "carol-pods/team" of ClusterRole "pod-reader" to User "carol"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := review(t, tt.ctx, res[tt.plural], tt.body)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got["status"], tt.want) {
				t.Errorf("status %v, want %v", got["status"], tt.want)
			}
			if _, ok := got["spec"].(map[string]any); !ok {
				t.Errorf("answer %v lost the spec it was asked", got)
			}
			if meta := got["metadata"].(map[string]any); !reflect.DeepEqual(meta["creationTimestamp"], nil) {
				t.Errorf("metadata %v, want creationTimestamp null", meta)
			}
		})
	}
}

// TestSelfSubjectRulesReview lists the caller's rules as kube's RBAC
// resolver does; a binding to a missing role is an evaluation error.
func TestSelfSubjectRulesReview(t *testing.T) {
	objs := testPolicy()
	objs.RoleBindings = append(objs.RoleBindings, rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "dangling", Namespace: "team"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacGroup, Kind: "ClusterRole", Name: "gone"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacGroup, Name: "carol"}},
	})
	res := reviews(t, &objs)["selfsubjectrulesreviews"]
	got, err := review(t, caller("carol"), res, `{"metadata":{"name":"q","labels":{"a":"b"}},"spec":{"namespace":"team"}}`)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectRulesReview",
		"metadata": map[string]any{"creationTimestamp": nil},
		"spec":     map[string]any{},
		"status": map[string]any{
			"resourceRules": []any{
				map[string]any{"verbs": []any{"get", "list"}, "apiGroups": []any{""}, "resources": []any{"pods"}},
				map[string]any{"verbs": []any{"create", "update", "patch"}, "apiGroups": []any{rbacGroup}, "resources": []any{"roles", "rolebindings", "clusterroles", "clusterrolebindings"}},
			},
			"nonResourceRules": []any{},
			"incomplete":       false,
			"evaluationError":  `clusterrole.rbac.authorization.k8s.io "gone" not found`,
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("review\n got %v\nwant %v", got, want)
	}

	_, err = review(t, caller("carol"), res, `{"spec":{}}`)
	if bad := (*BadRequestError)(nil); !errors.As(err, &bad) || bad.Message != "no namespace on request" {
		t.Errorf("error %v, want kube's bad request for no namespace", err)
	}
}

// TestAccessReviewsAlwaysAllow: without an authorizer, as under kube's
// AlwaysAllow mode, every review is allowed and the caller holds every
// rule.
func TestAccessReviewsAlwaysAllow(t *testing.T) {
	res := reviews(t, nil)
	got, err := review(t, caller("nobody"), res["subjectaccessreviews"], `{"spec":{"user":"x","resourceAttributes":{"verb":"delete","resource":"nodes"}}}`)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]any{"allowed": true}; !reflect.DeepEqual(got["status"], want) {
		t.Errorf("status %v, want %v", got["status"], want)
	}
	got, err = review(t, caller("nobody"), res["selfsubjectrulesreviews"], `{"spec":{"namespace":"default"}}`)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"resourceRules":    []any{map[string]any{"verbs": []any{"*"}, "apiGroups": []any{"*"}, "resources": []any{"*"}}},
		"nonResourceRules": []any{map[string]any{"verbs": []any{"*"}, "nonResourceURLs": []any{"*"}}},
		"incomplete":       false,
	}
	if !reflect.DeepEqual(got["status"], want) {
		t.Errorf("status %v, want %v", got["status"], want)
	}
}
