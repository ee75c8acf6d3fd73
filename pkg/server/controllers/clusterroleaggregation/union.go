package clusterroleaggregation

import (
	"cmp"
	"fmt"
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// aggregate is the rules role's aggregationRule gathers from roles, in
// kube's order. roles may include role itself, which is skipped: an
// aggregate never feeds on its own (possibly stale) rules. The result
// is empty, not nil, when nothing matches, and a nil aggregationRule
// gathers nothing.
func aggregate(role *rbacv1.ClusterRole, roles []*rbacv1.ClusterRole) ([]rbacv1.PolicyRule, error) {
	out := []rbacv1.PolicyRule{}
	if role.AggregationRule == nil {
		return out, nil
	}
	byName := slices.Clone(roles)
	slices.SortFunc(byName, func(a, b *rbacv1.ClusterRole) int { return cmp.Compare(a.Name, b.Name) })
	for i := range role.AggregationRule.ClusterRoleSelectors {
		sel, err := metav1.LabelSelectorAsSelector(&role.AggregationRule.ClusterRoleSelectors[i])
		if err != nil {
			return nil, fmt.Errorf("clusterRoleSelectors[%d]: %w", i, err)
		}
		for _, r := range byName {
			if r.Name == role.Name || !sel.Matches(labels.Set(r.Labels)) {
				continue
			}
			for _, rule := range r.Rules {
				if !slices.ContainsFunc(out, func(have rbacv1.PolicyRule) bool { return equality.Semantic.DeepEqual(have, rule) }) {
					out = append(out, rule)
				}
			}
		}
	}
	return out, nil
}
