package bootstrap

import (
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/server/rbac"
)

// Operation is the write that brings an object to what the policy wants.
type Operation string

const (
	OpNone   Operation = "none"
	OpCreate Operation = "create"
	OpUpdate Operation = "update"
	// OpRecreate: delete the existing binding, with its UID as the
	// precondition, then create the result's object. A binding's roleRef
	// cannot be updated.
	OpRecreate Operation = "recreate"
)

// RoleResult says what reconciling a ClusterRole or Role needs.
type RoleResult[T any] struct {
	// Object is what to write: a copy of the wanted object for OpCreate,
	// of the existing one with the missing parts added otherwise. The
	// caller owns it.
	Object    T
	Operation Operation
	// Protected: the existing object opted out of reconciliation
	// (autoupdate annotation "false"); nothing is to be written even if
	// Operation says what would be.
	Protected bool
	// MissingRules are the parts of the wanted rules the existing object
	// did not allow, as added; on create, the wanted rules.
	MissingRules []rbacv1.PolicyRule
	// MissingSelectors are the wanted aggregation selectors the existing
	// object lacked, as added.
	MissingSelectors []metav1.LabelSelector
}

// Write reports whether the caller must perform Operation.
func (r RoleResult[T]) Write() bool { return !r.Protected && r.Operation != OpNone }

// BindingResult says what reconciling a ClusterRoleBinding or RoleBinding
// needs.
type BindingResult[T any] struct {
	// Object is what to write: a copy of the wanted object for OpCreate
	// and OpRecreate, of the existing one with the missing subjects and
	// metadata added for OpUpdate and OpNone. The caller owns it.
	Object    T
	Operation Operation
	// Protected: as for RoleResult.
	Protected bool
	// MissingSubjects are the wanted subjects the existing binding lacked,
	// as added; on create, the wanted subjects.
	MissingSubjects []rbacv1.Subject
}

// Write reports whether the caller must perform Operation.
func (r BindingResult[T]) Write() bool { return !r.Protected && r.Operation != OpNone }

// Recreate reports whether the existing binding must be deleted before
// Object is created.
func (r BindingResult[T]) Recreate() bool { return r.Operation == OpRecreate }

// ReconcileClusterRole brings existing (nil if absent) up to wanted
// without taking anything away: labels and annotations it lacks are added
// (its own values win), rules it does not already allow are appended,
// missing aggregation selectors are appended. An aggregated role's rules
// belong to the aggregation controller: the wanted aggregated role has no
// rules, so nothing is added to them and nothing removed. A role that
// aggregates but should not loses its aggregation rule.
func ReconcileClusterRole(existing, wanted *rbacv1.ClusterRole) RoleResult[*rbacv1.ClusterRole] {
	if existing == nil {
		return RoleResult[*rbacv1.ClusterRole]{
			Object:           wanted.DeepCopy(),
			Operation:        OpCreate,
			MissingRules:     slices.Clone(wanted.Rules),
			MissingSelectors: selectors(wanted.AggregationRule),
		}
	}
	out := existing.DeepCopy()
	r := RoleResult[*rbacv1.ClusterRole]{Object: out, Protected: protected(&existing.ObjectMeta)}
	changed := addMeta(&out.ObjectMeta, &wanted.ObjectMeta)
	_, r.MissingRules = rbac.Covers(existing.Rules, wanted.Rules)
	if len(r.MissingRules) > 0 {
		out.Rules = append(out.Rules, r.MissingRules...)
		changed = true
	}
	if wanted.AggregationRule == nil && existing.AggregationRule != nil {
		out.AggregationRule = nil
		changed = true
	} else if wanted.AggregationRule != nil {
		r.MissingSelectors = missingSelectors(selectors(existing.AggregationRule), wanted.AggregationRule.ClusterRoleSelectors)
		if len(r.MissingSelectors) > 0 {
			if out.AggregationRule == nil {
				out.AggregationRule = &rbacv1.AggregationRule{}
			}
			out.AggregationRule.ClusterRoleSelectors = append(out.AggregationRule.ClusterRoleSelectors, r.MissingSelectors...)
			changed = true
		}
	}
	r.Operation = operation(changed)
	return r
}

// ReconcileRole is ReconcileClusterRole for a namespaced Role, which has
// no aggregation.
func ReconcileRole(existing, wanted *rbacv1.Role) RoleResult[*rbacv1.Role] {
	if existing == nil {
		return RoleResult[*rbacv1.Role]{Object: wanted.DeepCopy(), Operation: OpCreate, MissingRules: slices.Clone(wanted.Rules)}
	}
	out := existing.DeepCopy()
	r := RoleResult[*rbacv1.Role]{Object: out, Protected: protected(&existing.ObjectMeta)}
	changed := addMeta(&out.ObjectMeta, &wanted.ObjectMeta)
	_, r.MissingRules = rbac.Covers(existing.Rules, wanted.Rules)
	if len(r.MissingRules) > 0 {
		out.Rules = append(out.Rules, r.MissingRules...)
		changed = true
	}
	r.Operation = operation(changed)
	return r
}

// ReconcileClusterRoleBinding brings existing (nil if absent) up to
// wanted: labels, annotations and subjects it lacks are added, nothing is
// removed. A binding to another role is replaced by wanted whole
// (OpRecreate).
func ReconcileClusterRoleBinding(existing, wanted *rbacv1.ClusterRoleBinding) BindingResult[*rbacv1.ClusterRoleBinding] {
	if existing == nil {
		return BindingResult[*rbacv1.ClusterRoleBinding]{Object: wanted.DeepCopy(), Operation: OpCreate, MissingSubjects: slices.Clone(wanted.Subjects)}
	}
	r := BindingResult[*rbacv1.ClusterRoleBinding]{Protected: protected(&existing.ObjectMeta)}
	if existing.RoleRef != wanted.RoleRef {
		r.Object, r.Operation = wanted.DeepCopy(), OpRecreate
		return r
	}
	out := existing.DeepCopy()
	changed := addMeta(&out.ObjectMeta, &wanted.ObjectMeta)
	r.MissingSubjects = missingSubjects(existing.Subjects, wanted.Subjects)
	if len(r.MissingSubjects) > 0 {
		out.Subjects = append(out.Subjects, r.MissingSubjects...)
		changed = true
	}
	r.Object, r.Operation = out, operation(changed)
	return r
}

// ReconcileRoleBinding is ReconcileClusterRoleBinding for a namespaced
// RoleBinding.
func ReconcileRoleBinding(existing, wanted *rbacv1.RoleBinding) BindingResult[*rbacv1.RoleBinding] {
	if existing == nil {
		return BindingResult[*rbacv1.RoleBinding]{Object: wanted.DeepCopy(), Operation: OpCreate, MissingSubjects: slices.Clone(wanted.Subjects)}
	}
	r := BindingResult[*rbacv1.RoleBinding]{Protected: protected(&existing.ObjectMeta)}
	if existing.RoleRef != wanted.RoleRef {
		r.Object, r.Operation = wanted.DeepCopy(), OpRecreate
		return r
	}
	out := existing.DeepCopy()
	changed := addMeta(&out.ObjectMeta, &wanted.ObjectMeta)
	r.MissingSubjects = missingSubjects(existing.Subjects, wanted.Subjects)
	if len(r.MissingSubjects) > 0 {
		out.Subjects = append(out.Subjects, r.MissingSubjects...)
		changed = true
	}
	r.Object, r.Operation = out, operation(changed)
	return r
}

func operation(changed bool) Operation {
	if changed {
		return OpUpdate
	}
	return OpNone
}

func protected(m *metav1.ObjectMeta) bool {
	return m.Annotations[rbacv1.AutoUpdateAnnotationKey] == "false"
}

// addMeta adds the labels and annotations of want that out lacks; values
// out already has stay.
func addMeta(out, want *metav1.ObjectMeta) bool {
	a := addMissing(&out.Labels, want.Labels)
	b := addMissing(&out.Annotations, want.Annotations)
	return a || b
}

func addMissing(dst *map[string]string, src map[string]string) bool {
	changed := false
	for k, v := range src {
		if _, ok := (*dst)[k]; ok {
			continue
		}
		if *dst == nil {
			*dst = map[string]string{}
		}
		(*dst)[k] = v
		changed = true
	}
	return changed
}

func selectors(a *rbacv1.AggregationRule) []metav1.LabelSelector {
	if a == nil {
		return nil
	}
	return slices.Clone(a.ClusterRoleSelectors)
}

// missingSelectors are the selectors of want equal to none of have; nil
// and empty lists and maps inside a selector count as equal.
func missingSelectors(have, want []metav1.LabelSelector) []metav1.LabelSelector {
	var out []metav1.LabelSelector
	for _, w := range want {
		if !slices.ContainsFunc(have, func(h metav1.LabelSelector) bool { return equality.Semantic.DeepEqual(h, w) }) {
			out = append(out, *w.DeepCopy())
		}
	}
	return out
}

// missingSubjects are the subjects of want absent from have, each once.
func missingSubjects(have, want []rbacv1.Subject) []rbacv1.Subject {
	var out []rbacv1.Subject
	for _, w := range want {
		if !slices.Contains(have, w) && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}
