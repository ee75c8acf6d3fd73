package bootstrap

import (
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Metadata every default object carries. The annotation opts the object
// into reconciliation at each start; setting it to "false" opts out.
const (
	BootstrappingLabel = "kubernetes.io/bootstrapping"
	BootstrappingValue = "rbac-defaults"
	AutoUpdateValue    = "true"
)

// Policy is every default object: ClusterRoles (the system:controller:*
// ones and the aggregated admin/edit/view with the system:aggregate-to-*
// roles that feed them included), ClusterRoleBindings, and the Roles and
// RoleBindings of kube-system and kube-public.
type Policy struct {
	ClusterRoles        []rbacv1.ClusterRole
	ClusterRoleBindings []rbacv1.ClusterRoleBinding
	Roles               []rbacv1.Role        // each with its Namespace set
	RoleBindings        []rbacv1.RoleBinding // each with its Namespace set
}

// Default is the policy the v1.33 apiserver writes with its feature gates
// at their defaults, in the order it writes it. Each call builds new
// objects, so callers may change them.
func Default() Policy {
	ctrl := controllerRoles()
	p := Policy{
		ClusterRoles:        append(clusterRoles(), ctrl...),
		ClusterRoleBindings: append(clusterRoleBindings(), controllerBindings(ctrl)...),
		Roles:               namespaceRoles(),
		RoleBindings:        namespaceRoleBindings(),
	}
	for i := range p.ClusterRoles {
		stamp(&p.ClusterRoles[i].TypeMeta, &p.ClusterRoles[i].ObjectMeta, "ClusterRole")
	}
	for i := range p.ClusterRoleBindings {
		stamp(&p.ClusterRoleBindings[i].TypeMeta, &p.ClusterRoleBindings[i].ObjectMeta, "ClusterRoleBinding")
	}
	for i := range p.Roles {
		stamp(&p.Roles[i].TypeMeta, &p.Roles[i].ObjectMeta, "Role")
	}
	for i := range p.RoleBindings {
		stamp(&p.RoleBindings[i].TypeMeta, &p.RoleBindings[i].ObjectMeta, "RoleBinding")
	}
	return p
}

// stamp sets the kind and the default label and annotation.
func stamp(t *metav1.TypeMeta, m *metav1.ObjectMeta, kind string) {
	t.APIVersion = rbacv1.SchemeGroupVersion.String()
	t.Kind = kind
	if m.Labels == nil {
		m.Labels = map[string]string{}
	}
	m.Labels[BootstrappingLabel] = BootstrappingValue
	if m.Annotations == nil {
		m.Annotations = map[string]string{}
	}
	m.Annotations[rbacv1.AutoUpdateAnnotationKey] = AutoUpdateValue
}
