package clusterroleaggregation

import (
	"reflect"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func rule(verb, group, resource string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: []string{verb}, APIGroups: []string{group}, Resources: []string{resource}}
}

func url(verb, path string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: []string{verb}, NonResourceURLs: []string{path}}
}

func role(name string, labels map[string]string, rules ...rbacv1.PolicyRule) rbacv1.ClusterRole {
	return rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Rules: rules}
}

func aggregator(name string, sels ...metav1.LabelSelector) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		ObjectMeta:      metav1.ObjectMeta{Name: name},
		AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: sels},
	}
}

func matchLabels(kv ...string) metav1.LabelSelector {
	m := map[string]string{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return metav1.LabelSelector{MatchLabels: m}
}

func TestAggregate(t *testing.T) {
	pods, secrets, deploys := rule("get", "", "pods"), rule("list", "", "secrets"), rule("get", "apps", "deployments")
	x := url("get", "/x")
	in12 := metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: "b", Operator: metav1.LabelSelectorOpIn, Values: []string{"1", "2"}},
	}}
	tests := []struct {
		name  string
		role  *rbacv1.ClusterRole
		roles []rbacv1.ClusterRole
		want  []rbacv1.PolicyRule
	}{{
		// The case run against kube-controller-manager v1.33: selectors
		// in order, the matches of each by name, repeats dropped.
		name: "kube's order and dedup",
		role: aggregator("agg", matchLabels("a", "yes"), in12),
		roles: []rbacv1.ClusterRole{
			role("b-role", map[string]string{"a": "yes"}, secrets, pods),
			role("0-role", map[string]string{"b": "1"}, secrets, deploys),
			role("a-role", map[string]string{"a": "yes", "b": "2"}, pods, x),
		},
		want: []rbacv1.PolicyRule{pods, x, secrets, deploys},
	}, {
		name: "matchExpressions",
		role: aggregator("agg", metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "tier", Operator: metav1.LabelSelectorOpExists},
			{Key: "tier", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"db"}},
			{Key: "legacy", Operator: metav1.LabelSelectorOpDoesNotExist},
		}}),
		roles: []rbacv1.ClusterRole{
			role("web", map[string]string{"tier": "web"}, pods),
			role("db", map[string]string{"tier": "db"}, secrets),
			role("old", map[string]string{"tier": "web", "legacy": "true"}, x),
			role("none", nil, deploys),
		},
		want: []rbacv1.PolicyRule{pods},
	}, {
		name: "matchLabels and matchExpressions in one selector",
		role: aggregator("agg", metav1.LabelSelector{
			MatchLabels:      map[string]string{"a": "yes"},
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "b", Operator: metav1.LabelSelectorOpIn, Values: []string{"2"}}},
		}),
		roles: []rbacv1.ClusterRole{
			role("only-a", map[string]string{"a": "yes"}, pods),
			role("both", map[string]string{"a": "yes", "b": "2"}, secrets),
		},
		want: []rbacv1.PolicyRule{secrets},
	}, {
		name: "a role its own selector matches is skipped",
		role: func() *rbacv1.ClusterRole {
			r := aggregator("agg", matchLabels("a", "yes"))
			r.Labels = map[string]string{"a": "yes"}
			return r
		}(),
		roles: []rbacv1.ClusterRole{
			{ObjectMeta: metav1.ObjectMeta{Name: "agg", Labels: map[string]string{"a": "yes"}}, Rules: []rbacv1.PolicyRule{x},
				AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{matchLabels("a", "yes")}}},
			role("member", map[string]string{"a": "yes"}, pods),
		},
		want: []rbacv1.PolicyRule{pods},
	}, {
		name:  "an empty selector matches every other role",
		role:  aggregator("agg", metav1.LabelSelector{}),
		roles: []rbacv1.ClusterRole{role("z", nil, x), role("agg", nil, deploys), role("a", map[string]string{"k": "v"}, pods)},
		want:  []rbacv1.PolicyRule{pods, x},
	}, {
		name: "rules equal but for nil and empty lists are one",
		role: aggregator("agg", matchLabels("a", "yes")),
		roles: []rbacv1.ClusterRole{
			role("1", map[string]string{"a": "yes"}, rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}, ResourceNames: []string{}}),
			role("2", map[string]string{"a": "yes"}, pods),
		},
		want: []rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}, ResourceNames: []string{}}},
	}, {
		// Semantic equality is order-sensitive, as in kube.
		name: "rules with the same items in another order are two",
		role: aggregator("agg", matchLabels("a", "yes")),
		roles: []rbacv1.ClusterRole{
			role("1", map[string]string{"a": "yes"}, rbacv1.PolicyRule{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods"}}),
			role("2", map[string]string{"a": "yes"}, rbacv1.PolicyRule{Verbs: []string{"list", "get"}, APIGroups: []string{""}, Resources: []string{"pods"}}),
		},
		want: []rbacv1.PolicyRule{
			{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods"}},
			{Verbs: []string{"list", "get"}, APIGroups: []string{""}, Resources: []string{"pods"}},
		},
	}, {
		name:  "no match",
		role:  aggregator("agg", matchLabels("a", "yes")),
		roles: []rbacv1.ClusterRole{role("other", map[string]string{"a": "no"}, pods)},
		want:  []rbacv1.PolicyRule{},
	}, {
		name:  "no selectors",
		role:  aggregator("agg"),
		roles: []rbacv1.ClusterRole{role("other", nil, pods)},
		want:  []rbacv1.PolicyRule{},
	}, {
		name:  "no aggregation rule",
		role:  &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "plain"}, Rules: []rbacv1.PolicyRule{x}},
		roles: []rbacv1.ClusterRole{role("other", nil, pods)},
		want:  []rbacv1.PolicyRule{},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := aggregate(tt.role, ptrs(tt.roles))
			if err != nil {
				t.Fatal(err)
			}
			if got == nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestAggregateBadSelector(t *testing.T) {
	r := aggregator("agg", metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: "a", Operator: metav1.LabelSelectorOpIn},
	}})
	if got, err := aggregate(r, ptrs([]rbacv1.ClusterRole{role("x", map[string]string{"a": "1"}, url("get", "/"))})); err == nil {
		t.Errorf("got %v and no error for an In without values", got)
	}
}

func TestApplyBody(t *testing.T) {
	tests := []struct {
		name  string
		rules []rbacv1.PolicyRule
		want  string
	}{{
		name: "empty lists left out",
		rules: []rbacv1.PolicyRule{
			{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}, ResourceNames: []string{}},
			{Verbs: []string{"get"}, NonResourceURLs: []string{"/x"}},
			{Verbs: []string{"use"}, APIGroups: []string{"policy"}, Resources: []string{"podsecuritypolicies"}, ResourceNames: []string{"restricted"}},
		},
		want: `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"agg"},"rules":[` +
			`{"verbs":["get"],"apiGroups":[""],"resources":["pods"]},` +
			`{"verbs":["get"],"nonResourceURLs":["/x"]},` +
			`{"verbs":["use"],"apiGroups":["policy"],"resources":["podsecuritypolicies"],"resourceNames":["restricted"]}]}`,
	}, {
		// Applying no rules gives up the ones the controller owned.
		name:  "no rules",
		rules: []rbacv1.PolicyRule{},
		want:  `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"agg"}}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := applyBody("agg", tt.rules)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func ptrs(roles []rbacv1.ClusterRole) []*rbacv1.ClusterRole {
	out := make([]*rbacv1.ClusterRole, len(roles))
	for i := range roles {
		out[i] = &roles[i]
	}
	return out
}
