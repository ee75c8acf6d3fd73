package rbac

import (
	"context"
	"fmt"
	"testing"

	"github.com/setpoint-dev/setpoint/pkg/server/authorizer"
)

// benchObjects is a cluster of 200 bindings: 100 ClusterRoleBindings
// and 100 RoleBindings over 20 namespaces, to users, groups and
// ServiceAccounts.
func benchObjects() Objects {
	var o Objects
	for i := range 20 {
		o.ClusterRoles = append(o.ClusterRoles, clusterRole(fmt.Sprintf("role-%d", i),
			rule("get,list,watch", "-,apps", fmt.Sprintf("kind%d,kind%d/status", i, i), ""),
			rule("update", "-", "configmaps", fmt.Sprintf("cm-%d", i))))
	}
	for i := range 100 {
		o.ClusterRoleBindings = append(o.ClusterRoleBindings, clusterBinding(fmt.Sprintf("crb-%d", i), fmt.Sprintf("role-%d", i%20),
			fmt.Sprintf("User:user-%d", i), fmt.Sprintf("Group:team-%d", i%10), fmt.Sprintf("ServiceAccount:ns-%d/sa-%d", i%20, i)))
	}
	for i := range 100 {
		ns := fmt.Sprintf("ns-%d", i%20)
		o.Roles = append(o.Roles, role(ns, fmt.Sprintf("r-%d", i), rule("get,list", "-", "pods,services", "")))
		o.RoleBindings = append(o.RoleBindings, roleBinding(ns, fmt.Sprintf("rb-%d", i), fmt.Sprintf("Role:r-%d", i),
			fmt.Sprintf("User:user-%d", i), fmt.Sprintf("Group:team-%d", i%10), "ServiceAccount:default"))
	}
	o.ClusterRoles = append(o.ClusterRoles, clusterRole("cluster-admin", rule("*", "*", "*", "")))
	o.ClusterRoleBindings = append(o.ClusterRoleBindings, clusterBinding("cluster-admin", "cluster-admin", "Group:system:masters"))
	return o
}

// benchRequest is a non-admin user's request the policy denies after
// looking at every binding naming the user, the costliest decision.
func benchRequest() authorizer.Attributes {
	return as(res("delete", "apps", "deployments", "web", "ns-7"), "user-47", "team-7", "system:authenticated")
}

func BenchmarkAuthorizeWarm(b *testing.B) {
	objs := benchObjects()
	a := NewAuthorizer(func(context.Context) (Objects, error) { return objs, nil })
	ctx := context.Background()
	at := benchRequest()
	if d, _, err := a.Authorize(ctx, at); d != authorizer.NoOpinion || err != nil {
		b.Fatalf("Authorize = %v, %v", d, err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := a.Authorize(ctx, at); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAuthorizeWarmParallel(b *testing.B) {
	objs := benchObjects()
	a := NewAuthorizer(func(context.Context) (Objects, error) { return objs, nil })
	ctx := context.Background()
	at := benchRequest()
	_, _, _ = a.Authorize(ctx, at)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			_, _, _ = a.Authorize(ctx, at)
		}
	})
}

// BenchmarkPolicyAuthorize is the uncached decision.
func BenchmarkPolicyAuthorize(b *testing.B) {
	p := NewPolicy(benchObjects())
	for _, tt := range []struct {
		name string
		at   authorizer.Attributes
	}{
		{"deny", benchRequest()},
		{"allow-by-role", as(res("list", "", "services", "", "ns-7"), "user-47", "team-7", "system:authenticated")},
		{"service-account", as(res("get", "", "pods", "p", "ns-3"), "system:serviceaccount:ns-3:default", "system:serviceaccounts", "system:serviceaccounts:ns-3")},
	} {
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p.Authorize(tt.at)
			}
		})
	}
}

func BenchmarkNewPolicy(b *testing.B) {
	o := benchObjects()
	b.ReportAllocs()
	for b.Loop() {
		NewPolicy(o)
	}
}
