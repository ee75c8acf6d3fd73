package registry

import (
	"strings"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	rbacv1beta1 "k8s.io/api/rbac/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// rbacGroup is the API group of Roles, ClusterRoles and their bindings.
const rbacGroup = rbacv1.GroupName

// rbacBuiltins are rbac.authorization.k8s.io/v1's kinds. Their names are
// path segments ("system:controller:x"), a PUT of a missing one creates
// it, and writes are checked against what the caller may grant (o's
// Authorizer, Rules and Roles; no check without them).
func rbacBuiltins(o BuiltinOptions) []*Resource {
	g := newRBACGuard(o)
	// kube prints roles with its default table: the creation time as a
	// date, no Age.
	createdAt := []Column{{Name: "Created At", Type: "date", Path: ".metadata.creationTimestamp", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]}}
	return []*Resource{
		{
			Group: rbacGroup, Version: "v1", Kind: "Role", ListKind: "RoleList",
			Plural: "roles", Singular: "role", Namespaced: true,
			Typed: true, NameIsPathSegment: true, CreatesOnUpdate: true,
			Columns:  createdAt,
			Strategy: roleStrategy{guard: g},
		},
		{
			Group: rbacGroup, Version: "v1", Kind: "ClusterRole", ListKind: "ClusterRoleList",
			Plural: "clusterroles", Singular: "clusterrole",
			Typed: true, NameIsPathSegment: true, CreatesOnUpdate: true,
			Columns:  createdAt,
			Strategy: roleStrategy{cluster: true, guard: g},
		},
		{
			Group: rbacGroup, Version: "v1", Kind: "RoleBinding", ListKind: "RoleBindingList",
			Plural: "rolebindings", Singular: "rolebinding", Namespaced: true,
			Typed: true, NameIsPathSegment: true, CreatesOnUpdate: true,
			Columns:  bindingColumns(rbacv1beta1.RoleBinding{}.SwaggerDoc()["roleRef"], "roleBinding"),
			Strategy: bindingStrategy{guard: g},
		},
		{
			Group: rbacGroup, Version: "v1", Kind: "ClusterRoleBinding", ListKind: "ClusterRoleBindingList",
			Plural: "clusterrolebindings", Singular: "clusterrolebinding",
			Typed: true, NameIsPathSegment: true, CreatesOnUpdate: true,
			Columns:  bindingColumns(rbacv1beta1.ClusterRoleBinding{}.SwaggerDoc()["roleRef"], "clusterRoleBinding"),
			Strategy: bindingStrategy{cluster: true, guard: g},
		},
	}
}

// bindingColumns are kube's binding table: the role as Kind/name, the
// age, and (wide) the subjects by kind. kube describes the subject
// columns with the kind's name in lower camel case (noun).
func bindingColumns(roleDoc, noun string) []Column {
	return []Column{
		{Name: "Role", Type: "string", Description: roleDoc, Value: func(obj map[string]any) any {
			ref, _ := obj["roleRef"].(map[string]any)
			return str(ref["kind"]) + "/" + str(ref["name"])
		}},
		{Name: "Age", Type: "string", Path: ".metadata.creationTimestamp", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
		{Name: "Users", Type: "string", Priority: 1, Description: "Users in the " + noun, Value: subjectsCell(rbacv1.UserKind)},
		{Name: "Groups", Type: "string", Priority: 1, Description: "Groups in the " + noun, Value: subjectsCell(rbacv1.GroupKind)},
		{Name: "ServiceAccounts", Type: "string", Priority: 1, Description: "ServiceAccounts in the " + noun, Value: subjectsCell(rbacv1.ServiceAccountKind)},
	}
}

// subjectsCell lists a binding's subjects of kind, comma separated;
// service accounts as namespace/name, with the namespace as written
// (kube prints "/name" for one the binding's namespace implies).
func subjectsCell(kind string) func(map[string]any) any {
	return func(obj map[string]any) any {
		subjects, _ := obj["subjects"].([]any)
		var names []string
		for _, s := range subjects {
			m, _ := s.(map[string]any)
			if str(m["kind"]) != kind {
				continue
			}
			name := str(m["name"])
			if kind == rbacv1.ServiceAccountKind {
				name = str(m["namespace"]) + "/" + name
			}
			names = append(names, name)
		}
		return strings.Join(names, ", ")
	}
}

// roleStrategy holds Roles and ClusterRoles (cluster) to kube's rules:
// every rule names verbs and what it applies to, non-resource URLs only
// in ClusterRoles, and an aggregation rule selects by valid labels. Who
// may write which rules is the guard's (rbacadmit.go).
type roleStrategy struct {
	cluster bool
	guard   *rbacGuard
}

func (s roleStrategy) PrepareForCreate(_ time.Time, obj map[string]any) field.ErrorList {
	return s.errors(obj, false)
}

// PrepareForUpdate checks the object as on create, and reports it twice
// as kube does: its update validation runs the create rules once more.
func (s roleStrategy) PrepareForUpdate(_ time.Time, obj, old map[string]any) field.ErrorList {
	errs := s.errors(obj, s.cluster && invalidAggregationLabels(old))
	return append(errs, errs...)
}

// errors checks a role; allowBadLabels accepts label values kube has
// since tightened, in a ClusterRole whose stored selectors hold some.
func (s roleStrategy) errors(obj map[string]any, allowBadLabels bool) field.ErrorList {
	var role rbacv1.ClusterRole
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, &role); err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	errs := policyRulesErrors(role.Rules, !s.cluster)
	if s.cluster {
		errs = append(errs, aggregationRuleErrors(role.AggregationRule, allowBadLabels)...)
	}
	return errs
}

// bindingStrategy holds RoleBindings and ClusterRoleBindings (cluster) to
// kube's rules: a role of this group (a ClusterRoleBinding's a
// ClusterRole) that never changes, and subjects of the known kinds.
type bindingStrategy struct {
	cluster bool
	guard   *rbacGuard
}

func (s bindingStrategy) PrepareForCreate(_ time.Time, obj map[string]any) field.ErrorList {
	defaultBinding(obj)
	return s.errors(obj)
}

// PrepareForUpdate reports the create rules twice, as kube does (its
// update validation runs them once more), then a changed roleRef.
func (s bindingStrategy) PrepareForUpdate(_ time.Time, obj, old map[string]any) field.ErrorList {
	defaultBinding(obj)
	errs := s.errors(obj)
	errs = append(errs, errs...)
	ref, oldRef := roleRefOf(obj), roleRefOf(old)
	if ref != oldRef {
		errs = append(errs, field.Invalid(field.NewPath("roleRef"), internalRoleRef(ref), "cannot change roleRef"))
	}
	return errs
}

func (s bindingStrategy) errors(obj map[string]any) field.ErrorList {
	var b rbacv1.RoleBinding
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, &b); err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	kinds := []string{"Role", "ClusterRole"}
	if s.cluster {
		kinds = []string{"ClusterRole"}
	}
	errs := roleRefErrors(b.RoleRef, kinds)
	for i, sub := range b.Subjects {
		errs = append(errs, subjectErrors(sub, !s.cluster, field.NewPath("subjects").Index(i))...)
	}
	return errs
}

// defaultBinding fills in the API groups kube defaults as it decodes a
// binding: the role's is this group, a User's or Group's too, a
// ServiceAccount's is the core group.
func defaultBinding(obj map[string]any) {
	if ref, ok := obj["roleRef"].(map[string]any); ok && str(ref["apiGroup"]) == "" {
		ref["apiGroup"] = rbacGroup
	}
	subjects, _ := obj["subjects"].([]any)
	for _, s := range subjects {
		m, ok := s.(map[string]any)
		if !ok || str(m["apiGroup"]) != "" {
			continue
		}
		switch str(m["kind"]) {
		case rbacv1.UserKind, rbacv1.GroupKind:
			m["apiGroup"] = rbacGroup
		}
	}
}

// roleRefOf reads a binding's roleRef, its API group defaulted.
func roleRefOf(obj map[string]any) rbacv1.RoleRef {
	m, _ := obj["roleRef"].(map[string]any)
	ref := rbacv1.RoleRef{APIGroup: str(m["apiGroup"]), Kind: str(m["kind"]), Name: str(m["name"])}
	if ref.APIGroup == "" {
		ref.APIGroup = rbacGroup
	}
	return ref
}
