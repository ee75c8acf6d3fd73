package compat_test

import (
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/setpoint-dev/setpoint/pkg/server/apiserver/apiservertest"
)

// TestRBACClientGo drives the RBAC kinds and the access reviews with
// client-go's typed clients, over JSON and protobuf, as controllers and
// kubectl auth do. Expected values are the oracle's (kube-apiserver
// v1.33), recorded by hand.
func TestRBACClientGo(t *testing.T) {
	srv := apiservertest.Start(t)
	for _, contentType := range []string{"application/json", protobufContentType} {
		t.Run(contentType, func(t *testing.T) {
			cfg := *srv.Config
			cfg.ContentType = contentType
			cs, err := kubernetes.NewForConfig(&cfg)
			if err != nil {
				t.Fatal(err)
			}
			suffix := strings.ReplaceAll(strings.TrimPrefix(contentType, "application/"), ".", "-")
			ns := createNamespace(t, cs, "rbac-"+suffix)
			rbac := cs.RbacV1()
			ctx := t.Context()

			role, err := rbac.Roles(ns).Create(ctx, &rbacv1.Role{
				ObjectMeta: metav1.ObjectMeta{Name: "system:reader"},
				Rules:      []rbacv1.PolicyRule{{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods"}}},
			}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			role.Rules = append(role.Rules, rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}})
			if _, err := rbac.Roles(ns).Update(ctx, role, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			rb, err := rbac.RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{
				ObjectMeta: metav1.ObjectMeta{Name: "readers"},
				RoleRef:    rbacv1.RoleRef{Kind: "Role", Name: "system:reader"},
				Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: "carol"}},
			}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if rb.RoleRef.APIGroup != rbacv1.GroupName || rb.Subjects[0].APIGroup != rbacv1.GroupName {
				t.Errorf("binding %+v, want its API groups defaulted", rb)
			}
			rb.RoleRef.Name = "other"
			_, err = rbac.RoleBindings(ns).Update(ctx, rb, metav1.UpdateOptions{})
			if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "cannot change roleRef") {
				t.Errorf("roleRef change: %v, want kube's 422", err)
			}
			crbName := "readers-" + suffix
			if _, err := rbac.ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
				ObjectMeta: metav1.ObjectMeta{Name: crbName},
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
				Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "sa", Namespace: ns}},
			}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			list, err := rbac.RoleBindings(ns).List(ctx, metav1.ListOptions{})
			if err != nil || len(list.Items) != 1 {
				t.Fatalf("list: %v %v, want the one binding", list, err)
			}

			sar, err := cs.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
				Spec: authorizationv1.SubjectAccessReviewSpec{
					User: "x", Groups: []string{"system:masters"},
					ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Verb: "delete", Resource: "pods"},
				},
			}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !sar.Status.Allowed || sar.Spec.User != "x" {
				t.Errorf("review %+v, want system:masters allowed and the spec kept", sar)
			}
			_, err = cs.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{}, metav1.CreateOptions{})
			if !apierrors.IsInvalid(err) {
				t.Errorf("empty review: %v, want 422", err)
			}
			rules, err := cs.AuthorizationV1().SelfSubjectRulesReviews().Create(ctx, &authorizationv1.SelfSubjectRulesReview{
				Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: ns},
			}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(rules.Status.ResourceRules) == 0 {
				t.Errorf("the admin's rules %+v, want some", rules.Status)
			}

			if err := rbac.RoleBindings(ns).Delete(ctx, "readers", metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := rbac.ClusterRoleBindings().Delete(ctx, crbName, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := rbac.Roles(ns).Delete(ctx, "system:reader", metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
		})
	}
}
