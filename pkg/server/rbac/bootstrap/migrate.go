package bootstrap

import (
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Before reconciling, the hook carries over what older releases kept
// elsewhere, so that an upgraded cluster keeps its customisations.

// Aggregation moves the rules of a role that used to list them itself
// (From) to the role that now feeds it by aggregation (Into).
type Aggregation struct{ From, Into string }

// Aggregations are the roles that became aggregated: admin, edit, view.
func Aggregations() []Aggregation {
	return []Aggregation{
		{From: "admin", Into: "system:aggregate-to-admin"},
		{From: "edit", Into: "system:aggregate-to-edit"},
		{From: "view", Into: "system:aggregate-to-view"},
	}
}

// MigrateAggregation returns the role to create as a.Into when it does not
// exist yet: a copy of the stored a.From under the new name, so rules
// added to the legacy role by hand survive. It returns nil when from
// already aggregates, since it then holds no rules of its own to keep.
// The caller creates the result only if a.Into is absent and tolerates
// AlreadyExists. (Kube stops looking at the other aggregations when it
// meets an already aggregated legacy role, in random map order; going on
// is what kube does when that role comes last.)
func MigrateAggregation(a Aggregation, from *rbacv1.ClusterRole) *rbacv1.ClusterRole {
	if from == nil || from.AggregationRule != nil {
		return nil
	}
	out := from.DeepCopy()
	out.Name = a.Into
	out.ResourceVersion = ""
	out.UID = ""
	out.CreationTimestamp = metav1.Time{}
	out.ManagedFields = nil
	return out
}

// Split is a binding whose subjects moved to a new binding: From keeps its
// subjects, Into starts with them.
type Split struct {
	From string
	Into rbacv1.ClusterRoleBinding
}

// Splits: the public parts of system:discovery moved to
// system:public-info-viewer, so those who were granted discovery keep
// what they could see.
func Splits() []Split {
	for _, b := range Default().ClusterRoleBindings {
		if b.Name == "system:public-info-viewer" {
			return []Split{{From: "system:discovery", Into: b}}
		}
	}
	return nil
}

// SplitBinding returns the binding to create as s.Into when it does not
// exist yet but s.From does: s.Into with from's subjects, labels and
// annotations.
func SplitBinding(s Split, from *rbacv1.ClusterRoleBinding) *rbacv1.ClusterRoleBinding {
	if from == nil {
		return nil
	}
	out := s.Into.DeepCopy()
	c := from.DeepCopy()
	out.Subjects, out.Labels, out.Annotations = c.Subjects, c.Labels, c.Annotations
	return out
}
