package rbac_test

import (
	"context"
	"fmt"

	authenticationv1 "k8s.io/api/authentication/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/server/authorizer"
	"github.com/setpoint-dev/setpoint/pkg/server/rbac"
)

func ExampleNewAuthorizer() {
	// The objects would come from the store; the server calls
	// Invalidate whenever one of them changes.
	load := func(context.Context) (rbac.Objects, error) {
		return rbac.Objects{
			ClusterRoles: []rbacv1.ClusterRole{{
				ObjectMeta: metav1.ObjectMeta{Name: "view"},
				Rules:      []rbacv1.PolicyRule{{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{""}, Resources: []string{"pods"}}},
			}},
			RoleBindings: []rbacv1.RoleBinding{{
				ObjectMeta: metav1.ObjectMeta{Namespace: "dev", Name: "viewers"},
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
				Subjects:   []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "developers"}},
			}},
		}, nil
	}
	a := rbac.NewAuthorizer(load)
	jane := authenticationv1.UserInfo{Username: "jane", Groups: []string{"developers", "system:authenticated"}}

	for _, ns := range []string{"dev", "prod"} {
		at := authorizer.Attributes{User: jane, ResourceRequest: true, Verb: "list", Resource: "pods", Namespace: ns}
		d, reason, _ := a.Authorize(context.Background(), at)
		if d == authorizer.Allow {
			fmt.Printf("%s: %v, %s\n", ns, d, reason)
			continue
		}
		fmt.Printf("%s: %v, %s\n", ns, d, authorizer.ForbiddenMessage(at))
	}
	// Output:
	// dev: Allow, RBAC: allowed by RoleBinding "viewers/dev" of ClusterRole "view" to Group "developers"
	// prod: NoOpinion, User "jane" cannot list resource "pods" in API group "" in the namespace "prod"
}
