package bootstrap

import (
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	systemNamespace = "kube-system"
	publicNamespace = "kube-public"
)

func role(namespace, name string, rules ...rbacv1.PolicyRule) rbacv1.Role {
	return rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, Rules: rules}
}

// roleBinding binds the Role roleName of the binding's namespace.
func roleBinding(namespace, name, roleName string, subjects ...[]rbacv1.Subject) rbacv1.RoleBinding {
	return rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: roleName},
		Subjects:   concat(subjects),
	}
}

// namespaceRoles are the Roles of kube-system, then kube-public.
func namespaceRoles() []rbacv1.Role {
	leaderLocking := func(component string) rbacv1.Role {
		return role(systemNamespace, "system::leader-locking-"+component,
			res("watch", core, "configmaps"),
			named("get update", core, "configmaps", component),
			res("get watch list create update", coordination, "leases"),
			res("get watch list create update", coordination, "leasecandidates"))
	}
	return []rbacv1.Role{
		// Lets aggregated apiservers read how to authenticate requests.
		role(systemNamespace, "extension-apiserver-authentication-reader",
			named("get list watch", core, "configmaps", "extension-apiserver-authentication")),
		role(systemNamespace, controllerPrefix+"bootstrap-signer", res("get list watch", core, "secrets")),
		role(systemNamespace, controllerPrefix+"cloud-provider", res("create get list watch", core, "configmaps")),
		role(systemNamespace, controllerPrefix+"token-cleaner",
			res("get list watch delete", core, "secrets"),
			events()),
		leaderLocking("kube-controller-manager"),
		leaderLocking("kube-scheduler"),
		role(publicNamespace, controllerPrefix+"bootstrap-signer",
			res("get list watch", core, "configmaps"),
			named("update", core, "configmaps", "cluster-info"),
			events()),
	}
}

// namespaceRoleBindings are the RoleBindings of kube-system, then
// kube-public.
func namespaceRoleBindings() []rbacv1.RoleBinding {
	same := func(namespace, name string, subjects ...[]rbacv1.Subject) rbacv1.RoleBinding {
		return roleBinding(namespace, name, name, subjects...)
	}
	return []rbacv1.RoleBinding{
		roleBinding(systemNamespace, "system::extension-apiserver-authentication-reader",
			"extension-apiserver-authentication-reader", users(userControllerMgr, userScheduler)),
		same(systemNamespace, "system::leader-locking-kube-controller-manager", users(userControllerMgr),
			serviceAccount(systemNamespace, "kube-controller-manager"),
			serviceAccount(systemNamespace, "leader-election-controller")),
		same(systemNamespace, "system::leader-locking-kube-scheduler", users(userScheduler),
			serviceAccount(systemNamespace, "kube-scheduler")),
		same(systemNamespace, controllerPrefix+"bootstrap-signer", serviceAccount(systemNamespace, "bootstrap-signer")),
		same(systemNamespace, controllerPrefix+"cloud-provider", serviceAccount(systemNamespace, "cloud-provider")),
		same(systemNamespace, controllerPrefix+"token-cleaner", serviceAccount(systemNamespace, "token-cleaner")),
		same(publicNamespace, controllerPrefix+"bootstrap-signer", serviceAccount(systemNamespace, "bootstrap-signer")),
	}
}
