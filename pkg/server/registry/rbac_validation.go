package registry

import (
	"fmt"
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The RBAC kinds' rules, ported from kube's pkg/apis/rbac/validation
// with its paths and messages. Names (metadata's and roleRef's) are
// path segments there.

// policyRulesErrors checks a role's rules; namespaced (a Role's) rules
// may not name non-resource URLs.
func policyRulesErrors(rules []rbacv1.PolicyRule, namespaced bool) field.ErrorList {
	var errs field.ErrorList
	for i, r := range rules {
		errs = append(errs, policyRuleErrors(r, namespaced, field.NewPath("rules").Index(i))...)
	}
	return errs
}

func policyRuleErrors(r rbacv1.PolicyRule, namespaced bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(r.Verbs) == 0 {
		errs = append(errs, field.Required(p.Child("verbs"), "verbs must contain at least one value"))
	}
	if len(r.NonResourceURLs) > 0 {
		// kube v1.33 shows the list in Go syntax.
		urls := goSyntax(r.NonResourceURLs)
		if namespaced {
			errs = append(errs, field.Invalid(p.Child("nonResourceURLs"), urls, "namespaced rules cannot apply to non-resource URLs"))
		}
		if len(r.APIGroups) > 0 || len(r.Resources) > 0 || len(r.ResourceNames) > 0 {
			errs = append(errs, field.Invalid(p.Child("nonResourceURLs"), urls, "rules cannot apply to both regular resources and non-resource URLs"))
		}
		return errs
	}
	if len(r.APIGroups) == 0 {
		errs = append(errs, field.Required(p.Child("apiGroups"), "resource rules must supply at least one api group"))
	}
	if len(r.Resources) == 0 {
		errs = append(errs, field.Required(p.Child("resources"), "resource rules must supply at least one resource"))
	}
	return errs
}

// aggregationRuleErrors checks a ClusterRole's aggregation rule: at least
// one selector, each a valid label selector. allowBadLabels accepts
// label values that are not valid label values.
func aggregationRuleErrors(ar *rbacv1.AggregationRule, allowBadLabels bool) field.ErrorList {
	if ar == nil {
		return nil
	}
	p := field.NewPath("aggregationRule", "clusterRoleSelectors")
	var errs field.ErrorList
	if len(ar.ClusterRoleSelectors) == 0 {
		errs = append(errs, field.Required(p, "at least one clusterRoleSelector required if aggregationRule is non-nil"))
	}
	opts := metav1validation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: allowBadLabels}
	for i := range ar.ClusterRoleSelectors {
		sel := &ar.ClusterRoleSelectors[i]
		errs = append(errs, metav1validation.ValidateLabelSelector(sel, opts, p.Index(i))...)
		if _, err := metav1.LabelSelectorAsSelector(sel); err != nil {
			// kube reports the selector it failed to build, which is
			// nil: v1.33 prints it as the string "null".
			errs = append(errs, field.Invalid(p.Index(i), "null", "invalid label selector."))
		}
	}
	return errs
}

// invalidAggregationLabels reports whether a stored ClusterRole's
// aggregation selectors hold a label value kube no longer accepts; an
// update may keep such values.
func invalidAggregationLabels(obj map[string]any) bool {
	var role rbacv1.ClusterRole
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, &role); err != nil || role.AggregationRule == nil {
		return false
	}
	for i := range role.AggregationRule.ClusterRoleSelectors {
		if len(metav1validation.ValidateLabelSelector(&role.AggregationRule.ClusterRoleSelectors[i], metav1validation.LabelSelectorValidationOptions{}, nil)) > 0 {
			return true
		}
	}
	return false
}

// roleRefErrors checks a binding's roleRef: this API group, one of kinds,
// a name that is a path segment.
func roleRefErrors(ref rbacv1.RoleRef, kinds []string) field.ErrorList {
	p := field.NewPath("roleRef")
	var errs field.ErrorList
	if ref.APIGroup != rbacGroup {
		errs = append(errs, field.NotSupported(p.Child("apiGroup"), ref.APIGroup, []string{rbacGroup}))
	}
	if !slices.Contains(kinds, ref.Kind) {
		errs = append(errs, field.NotSupported(p.Child("kind"), ref.Kind, kinds))
	}
	if ref.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	} else {
		for _, msg := range content.IsPathSegmentName(ref.Name) {
			errs = append(errs, field.Invalid(p.Child("name"), ref.Name, msg))
		}
	}
	return errs
}

// subjectErrors checks one subject of a binding; in a ClusterRoleBinding
// (not namespaced) a ServiceAccount needs its namespace.
func subjectErrors(s rbacv1.Subject, namespaced bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	}
	switch s.Kind {
	case rbacv1.ServiceAccountKind:
		if s.Name != "" {
			for _, msg := range apivalidation.NameIsDNSSubdomain(s.Name, false) {
				errs = append(errs, field.Invalid(p.Child("name"), s.Name, msg))
			}
		}
		if s.APIGroup != "" {
			errs = append(errs, field.NotSupported(p.Child("apiGroup"), s.APIGroup, []string{""}))
		}
		if !namespaced && s.Namespace == "" {
			errs = append(errs, field.Required(p.Child("namespace"), ""))
		}
	case rbacv1.UserKind, rbacv1.GroupKind:
		if s.APIGroup != rbacGroup {
			errs = append(errs, field.NotSupported(p.Child("apiGroup"), s.APIGroup, []string{rbacGroup}))
		}
	default:
		errs = append(errs, field.NotSupported(p.Child("kind"), s.Kind, []string{rbacv1.ServiceAccountKind, rbacv1.UserKind, rbacv1.GroupKind}))
	}
	return errs
}

// internalRoleRef is a roleRef as kube v1.33 prints it in an error: Go
// syntax of its internal type.
func internalRoleRef(ref rbacv1.RoleRef) printedAs {
	return printedAs(fmt.Sprintf("rbac.RoleRef{APIGroup:%q, Kind:%q, Name:%q}", ref.APIGroup, ref.Kind, ref.Name))
}
