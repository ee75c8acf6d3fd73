package bootstrap

import (
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Well-known users and groups the default bindings name.
const (
	groupMasters         = "system:masters"
	groupMonitoring      = "system:monitoring"
	groupAuthenticated   = "system:authenticated"
	groupUnauthenticated = "system:unauthenticated"
	groupServiceAccounts = "system:serviceaccounts"
	userKubeProxy        = "system:kube-proxy"
	userControllerMgr    = "system:kube-controller-manager"
	userScheduler        = "system:kube-scheduler"
)

func users(names ...string) []rbacv1.Subject {
	out := make([]rbacv1.Subject, len(names))
	for i, n := range names {
		out[i] = rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: n}
	}
	return out
}

func groups(names ...string) []rbacv1.Subject {
	out := make([]rbacv1.Subject, len(names))
	for i, n := range names {
		out[i] = rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: n}
	}
	return out
}

func serviceAccount(namespace, name string) []rbacv1.Subject {
	return []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: name}}
}

// clusterBinding binds the ClusterRole of the same name.
func clusterBinding(name string, subjects ...[]rbacv1.Subject) rbacv1.ClusterRoleBinding {
	return rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
		Subjects:   concat(subjects),
	}
}

func concat(lists [][]rbacv1.Subject) []rbacv1.Subject {
	var out []rbacv1.Subject
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// clusterRoleBindings are the bindings other than the controllers' ones,
// in the order kube writes them.
func clusterRoleBindings() []rbacv1.ClusterRoleBinding {
	return []rbacv1.ClusterRoleBinding{
		clusterBinding("cluster-admin", groups(groupMasters)),
		clusterBinding("system:monitoring", groups(groupMonitoring)),
		clusterBinding("system:discovery", groups(groupAuthenticated)),
		clusterBinding("system:basic-user", groups(groupAuthenticated)),
		clusterBinding("system:public-info-viewer", groups(groupAuthenticated, groupUnauthenticated)),
		clusterBinding("system:node-proxier", users(userKubeProxy)),
		clusterBinding("system:kube-controller-manager", users(userControllerMgr)),
		clusterBinding("system:kube-dns", serviceAccount(systemNamespace, "kube-dns")),
		clusterBinding("system:kube-scheduler", users(userScheduler)),
		clusterBinding("system:volume-scheduler", users(userScheduler)),
		// Kept without subjects since the Node authorizer replaced it, so
		// that reconciliation does not put the system:nodes group back.
		clusterBinding("system:node"),
		clusterBinding("system:service-account-issuer-discovery", groups(groupServiceAccounts)),
	}
}
