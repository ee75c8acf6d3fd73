package bootstrap

import (
	"encoding/json"
	"reflect"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/server/rbac"
)

const autoUpdate = rbacv1.AutoUpdateAnnotationKey

func meta(name string, labels, annotations map[string]string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Labels: labels, Annotations: annotations, UID: "uid-1", ResourceVersion: "7"}
}

func defaults() (map[string]string, map[string]string) {
	return map[string]string{BootstrappingLabel: BootstrappingValue}, map[string]string{autoUpdate: "true"}
}

func selector(label string) metav1.LabelSelector {
	return metav1.LabelSelector{MatchLabels: map[string]string{label: "true"}}
}

func aggRule(labels ...string) *rbacv1.AggregationRule {
	a := &rbacv1.AggregationRule{}
	for _, l := range labels {
		a.ClusterRoleSelectors = append(a.ClusterRoleSelectors, selector(l))
	}
	return a
}

func asJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

func TestReconcileClusterRole(t *testing.T) {
	l, a := defaults()
	wanted := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "r", Labels: l, Annotations: a},
		Rules: []rbacv1.PolicyRule{
			res("get list", core, "pods services"),
			urls("get", "/healthz /version"),
		},
	}
	stored := func(anns map[string]string, rules ...rbacv1.PolicyRule) *rbacv1.ClusterRole {
		return &rbacv1.ClusterRole{ObjectMeta: meta("r", map[string]string{BootstrappingLabel: BootstrappingValue}, anns), Rules: rules}
	}
	tests := []struct {
		name          string
		existing      *rbacv1.ClusterRole
		wanted        *rbacv1.ClusterRole
		want          *rbacv1.ClusterRole
		op            Operation
		protected     bool
		write         bool
		missingRules  []rbacv1.PolicyRule
		missingSelect []metav1.LabelSelector
	}{{
		name:         "missing object is created as wanted",
		wanted:       wanted,
		want:         wanted,
		op:           OpCreate,
		write:        true,
		missingRules: wanted.Rules,
	}, {
		name:     "up to date",
		existing: stored(a, wanted.Rules...),
		wanted:   wanted,
		want:     stored(a, wanted.Rules...),
		op:       OpNone,
	}, {
		name:     "extra rules kept",
		existing: stored(a, res("*", core, "pods"), res("get list", core, "services"), urls("get", "/healthz /version"), res("delete", apps, "deployments")),
		wanted:   wanted,
		want:     stored(a, res("*", core, "pods"), res("get list", core, "services"), urls("get", "/healthz /version"), res("delete", apps, "deployments")),
		op:       OpNone,
	}, {
		name:     "missing parts appended one verb and resource at a time",
		existing: stored(a, res("get", core, "pods services"), urls("get", "/healthz")),
		wanted:   wanted,
		want: stored(a, res("get", core, "pods services"), urls("get", "/healthz"),
			res("list", core, "pods"), res("list", core, "services"), urls("get", "/version")),
		op:           OpUpdate,
		write:        true,
		missingRules: []rbacv1.PolicyRule{res("list", core, "pods"), res("list", core, "services"), urls("get", "/version")},
	}, {
		name:     "autoupdate false is left alone",
		existing: stored(map[string]string{autoUpdate: "false"}),
		wanted:   wanted,
		want:     stored(map[string]string{autoUpdate: "false"}, atoms(wanted.Rules[0])[0], atoms(wanted.Rules[0])[1], atoms(wanted.Rules[0])[2], atoms(wanted.Rules[0])[3], atoms(wanted.Rules[1])[0], atoms(wanted.Rules[1])[1]),
		op:       OpUpdate, protected: true, write: false,
		missingRules: append(atoms(wanted.Rules[0]), atoms(wanted.Rules[1])...),
	}, {
		name:     "wildcards cover",
		existing: stored(a, res("get list watch", "*", "*"), urls("get", "/*")),
		wanted:   wanted,
		want:     stored(a, res("get list watch", "*", "*"), urls("get", "/*")),
		op:       OpNone,
	}, {
		name:     "missing label and annotation added, stored values win",
		existing: &rbacv1.ClusterRole{ObjectMeta: meta("r", map[string]string{BootstrappingLabel: "mine"}, nil), Rules: wanted.Rules},
		wanted:   wanted,
		want:     &rbacv1.ClusterRole{ObjectMeta: meta("r", map[string]string{BootstrappingLabel: "mine"}, a), Rules: wanted.Rules},
		op:       OpUpdate,
		write:    true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := asJSON(tt.existing)
			got := ReconcileClusterRole(tt.existing, tt.wanted)
			if !reflect.DeepEqual(got.Object, tt.want) {
				t.Errorf("object\n got: %s\nwant: %s", asJSON(got.Object), asJSON(tt.want))
			}
			if got.Operation != tt.op || got.Protected != tt.protected || got.Write() != tt.write {
				t.Errorf("op, protected, write = %s, %v, %v; want %s, %v, %v", got.Operation, got.Protected, got.Write(), tt.op, tt.protected, tt.write)
			}
			if !reflect.DeepEqual(got.MissingRules, tt.missingRules) {
				t.Errorf("missing rules\n got: %s\nwant: %s", asJSON(got.MissingRules), asJSON(tt.missingRules))
			}
			if asJSON(tt.existing) != before {
				t.Error("existing object was modified")
			}
		})
	}
}

func TestReconcileAggregatedClusterRole(t *testing.T) {
	l, a := defaults()
	admin := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "admin", Labels: l, Annotations: a}, AggregationRule: aggRule(aggregateToAdmin)}
	filled := []rbacv1.PolicyRule{res("*", core, "pods"), res(read, core, "secrets")}
	tests := []struct {
		name     string
		existing *rbacv1.ClusterRole
		wanted   *rbacv1.ClusterRole
		want     *rbacv1.ClusterRole
		op       Operation
		missing  []metav1.LabelSelector
	}{{
		name:     "rules filled by the aggregation controller are left to it",
		existing: &rbacv1.ClusterRole{ObjectMeta: meta("admin", l, a), AggregationRule: aggRule(aggregateToAdmin), Rules: filled},
		wanted:   admin,
		want:     &rbacv1.ClusterRole{ObjectMeta: meta("admin", l, a), AggregationRule: aggRule(aggregateToAdmin), Rules: filled},
		op:       OpNone,
	}, {
		name:     "missing selector appended, own selectors kept",
		existing: &rbacv1.ClusterRole{ObjectMeta: meta("admin", l, a), AggregationRule: aggRule("mine"), Rules: filled},
		wanted:   admin,
		want:     &rbacv1.ClusterRole{ObjectMeta: meta("admin", l, a), AggregationRule: aggRule("mine", aggregateToAdmin), Rules: filled},
		op:       OpUpdate,
		missing:  []metav1.LabelSelector{selector(aggregateToAdmin)},
	}, {
		name: "selector equal but for nil and empty lists is not missing",
		existing: &rbacv1.ClusterRole{ObjectMeta: meta("admin", l, a), AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{
			{MatchLabels: map[string]string{aggregateToAdmin: "true"}, MatchExpressions: []metav1.LabelSelectorRequirement{}},
		}}},
		wanted: admin,
		want: &rbacv1.ClusterRole{ObjectMeta: meta("admin", l, a), AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{
			{MatchLabels: map[string]string{aggregateToAdmin: "true"}, MatchExpressions: []metav1.LabelSelectorRequirement{}},
		}}},
		op: OpNone,
	}, {
		name:     "legacy role with its own rules becomes aggregated and keeps them",
		existing: &rbacv1.ClusterRole{ObjectMeta: meta("admin", l, a), Rules: filled},
		wanted:   admin,
		want:     &rbacv1.ClusterRole{ObjectMeta: meta("admin", l, a), AggregationRule: aggRule(aggregateToAdmin), Rules: filled},
		op:       OpUpdate,
		missing:  []metav1.LabelSelector{selector(aggregateToAdmin)},
	}, {
		name:     "aggregation the policy does not want is removed",
		existing: &rbacv1.ClusterRole{ObjectMeta: meta("plain", l, a), AggregationRule: aggRule("mine"), Rules: filled},
		wanted:   &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "plain", Labels: l, Annotations: a}, Rules: filled[:1]},
		want:     &rbacv1.ClusterRole{ObjectMeta: meta("plain", l, a), Rules: filled},
		op:       OpUpdate,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ReconcileClusterRole(tt.existing, tt.wanted)
			if !reflect.DeepEqual(got.Object, tt.want) {
				t.Errorf("object\n got: %s\nwant: %s", asJSON(got.Object), asJSON(tt.want))
			}
			if got.Operation != tt.op {
				t.Errorf("operation = %s, want %s", got.Operation, tt.op)
			}
			if !reflect.DeepEqual(got.MissingSelectors, tt.missing) {
				t.Errorf("missing selectors = %s, want %s", asJSON(got.MissingSelectors), asJSON(tt.missing))
			}
		})
	}
}

func TestReconcileRole(t *testing.T) {
	l, a := defaults()
	wanted := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "r", Labels: l, Annotations: a},
		Rules:      []rbacv1.PolicyRule{named("get update", core, "configmaps", "one two")},
	}
	stored := func(anns map[string]string, rules ...rbacv1.PolicyRule) *rbacv1.Role {
		m := meta("r", l, anns)
		m.Namespace = "kube-system"
		return &rbacv1.Role{ObjectMeta: m, Rules: rules}
	}
	tests := []struct {
		name      string
		existing  *rbacv1.Role
		want      *rbacv1.Role
		op        Operation
		protected bool
	}{
		{name: "missing object is created as wanted", want: wanted, op: OpCreate},
		{name: "unnamed rule covers named", existing: stored(a, res("get update", core, "configmaps")), want: stored(a, res("get update", core, "configmaps")), op: OpNone},
		{name: "extra rules kept", existing: stored(a, named("get update", core, "configmaps", "one two three"), res("list", core, "pods")),
			want: stored(a, named("get update", core, "configmaps", "one two three"), res("list", core, "pods")), op: OpNone},
		{name: "missing names appended", existing: stored(a, named("get update", core, "configmaps", "one")),
			want: stored(a, named("get update", core, "configmaps", "one"), named("get", core, "configmaps", "two"), named("update", core, "configmaps", "two")), op: OpUpdate},
		{name: "autoupdate false is left alone", existing: stored(map[string]string{autoUpdate: "false"}),
			want: stored(map[string]string{autoUpdate: "false"}, atoms(wanted.Rules[0])...), op: OpUpdate, protected: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ReconcileRole(tt.existing, wanted)
			if !reflect.DeepEqual(got.Object, tt.want) {
				t.Errorf("object\n got: %s\nwant: %s", asJSON(got.Object), asJSON(tt.want))
			}
			if got.Operation != tt.op || got.Protected != tt.protected || got.Write() != (tt.op != OpNone && !tt.protected) {
				t.Errorf("op, protected, write = %s, %v, %v; want %s, %v", got.Operation, got.Protected, got.Write(), tt.op, tt.protected)
			}
		})
	}
}

func TestReconcileClusterRoleBinding(t *testing.T) {
	l, a := defaults()
	ref := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "r"}
	wanted := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "b", Labels: l, Annotations: a},
		RoleRef:    ref,
		Subjects:   concat([][]rbacv1.Subject{groups("g1"), users("u1"), serviceAccount("ns", "sa"), groups("g1")}),
	}
	stored := func(anns map[string]string, ref rbacv1.RoleRef, subjects ...[]rbacv1.Subject) *rbacv1.ClusterRoleBinding {
		return &rbacv1.ClusterRoleBinding{ObjectMeta: meta("b", l, anns), RoleRef: ref, Subjects: concat(subjects)}
	}
	other := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "other"}
	tests := []struct {
		name      string
		existing  *rbacv1.ClusterRoleBinding
		want      *rbacv1.ClusterRoleBinding
		op        Operation
		protected bool
		missing   []rbacv1.Subject
	}{{
		name: "missing object is created as wanted", want: wanted, op: OpCreate, missing: wanted.Subjects,
	}, {
		name:     "subjects unioned: missing appended once, extra kept",
		existing: stored(a, ref, users("extra"), groups("g1")),
		want:     stored(a, ref, users("extra"), groups("g1"), users("u1"), serviceAccount("ns", "sa")),
		op:       OpUpdate,
		missing:  concat([][]rbacv1.Subject{users("u1"), serviceAccount("ns", "sa")}),
	}, {
		name:     "same subject in another namespace is another subject",
		existing: stored(a, ref, groups("g1"), users("u1"), serviceAccount("other", "sa")),
		want:     stored(a, ref, groups("g1"), users("u1"), serviceAccount("other", "sa"), serviceAccount("ns", "sa")),
		op:       OpUpdate,
		missing:  serviceAccount("ns", "sa"),
	}, {
		name:     "up to date",
		existing: stored(a, ref, serviceAccount("ns", "sa"), users("u1"), groups("g1")),
		want:     stored(a, ref, serviceAccount("ns", "sa"), users("u1"), groups("g1")),
		op:       OpNone,
	}, {
		name:     "roleRef change recreates as wanted",
		existing: stored(a, other, users("extra")),
		want:     wanted,
		op:       OpRecreate,
	}, {
		name:      "autoupdate false is left alone, even with another roleRef",
		existing:  stored(map[string]string{autoUpdate: "false"}, other),
		want:      wanted,
		op:        OpRecreate,
		protected: true,
	}, {
		name:      "autoupdate false keeps subjects as they are",
		existing:  stored(map[string]string{autoUpdate: "false"}, ref),
		want:      stored(map[string]string{autoUpdate: "false"}, ref, groups("g1"), users("u1"), serviceAccount("ns", "sa")),
		op:        OpUpdate,
		protected: true,
		missing:   concat([][]rbacv1.Subject{groups("g1"), users("u1"), serviceAccount("ns", "sa")}),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := asJSON(tt.existing)
			got := ReconcileClusterRoleBinding(tt.existing, wanted)
			if !reflect.DeepEqual(got.Object, tt.want) {
				t.Errorf("object\n got: %s\nwant: %s", asJSON(got.Object), asJSON(tt.want))
			}
			if got.Operation != tt.op || got.Protected != tt.protected {
				t.Errorf("op, protected = %s, %v; want %s, %v", got.Operation, got.Protected, tt.op, tt.protected)
			}
			if got.Write() != (tt.op != OpNone && !tt.protected) || got.Recreate() != (tt.op == OpRecreate) {
				t.Errorf("write, recreate = %v, %v", got.Write(), got.Recreate())
			}
			if !reflect.DeepEqual(got.MissingSubjects, tt.missing) {
				t.Errorf("missing subjects = %s, want %s", asJSON(got.MissingSubjects), asJSON(tt.missing))
			}
			if asJSON(tt.existing) != before {
				t.Error("existing object was modified")
			}
		})
	}
}

func TestReconcileRoleBinding(t *testing.T) {
	l, a := defaults()
	ref := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "r"}
	wanted := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "b", Labels: l, Annotations: a},
		RoleRef:    ref,
		Subjects:   users("u1", "u2"),
	}
	stored := func(anns map[string]string, ref rbacv1.RoleRef, subjects ...rbacv1.Subject) *rbacv1.RoleBinding {
		m := meta("b", l, anns)
		m.Namespace = "kube-system"
		return &rbacv1.RoleBinding{ObjectMeta: m, RoleRef: ref, Subjects: subjects}
	}
	clusterRef := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "r"}
	tests := []struct {
		name      string
		existing  *rbacv1.RoleBinding
		want      *rbacv1.RoleBinding
		op        Operation
		protected bool
	}{
		{name: "missing object is created as wanted", want: wanted, op: OpCreate},
		{name: "subjects unioned", existing: stored(a, ref, users("u2", "x")...), want: stored(a, ref, users("u2", "x", "u1")...), op: OpUpdate},
		{name: "roleRef kind change recreates", existing: stored(a, clusterRef, users("u1", "u2")...), want: wanted, op: OpRecreate},
		{name: "autoupdate false is left alone", existing: stored(map[string]string{autoUpdate: "false"}, ref),
			want: stored(map[string]string{autoUpdate: "false"}, ref, users("u1", "u2")...), op: OpUpdate, protected: true},
		{name: "missing annotation added", existing: stored(nil, ref, users("u1", "u2")...), want: stored(a, ref, users("u1", "u2")...), op: OpUpdate},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ReconcileRoleBinding(tt.existing, wanted)
			if !reflect.DeepEqual(got.Object, tt.want) {
				t.Errorf("object\n got: %s\nwant: %s", asJSON(got.Object), asJSON(tt.want))
			}
			if got.Operation != tt.op || got.Protected != tt.protected || got.Recreate() != (tt.op == OpRecreate) {
				t.Errorf("op, protected, recreate = %s, %v, %v; want %s, %v", got.Operation, got.Protected, got.Recreate(), tt.op, tt.protected)
			}
		})
	}
}

// A second start finds the policy it wrote: nothing to do, for every
// default object.
func TestReconcileDefaultIsStable(t *testing.T) {
	stored, wanted := Default(), Default()
	for i := range wanted.ClusterRoles {
		if r := ReconcileClusterRole(&stored.ClusterRoles[i], &wanted.ClusterRoles[i]); r.Operation != OpNone {
			t.Errorf("clusterrole %s: %s %s", wanted.ClusterRoles[i].Name, r.Operation, asJSON(r.MissingRules))
		}
		if r := ReconcileClusterRole(nil, &wanted.ClusterRoles[i]); !r.Write() || !reflect.DeepEqual(r.Object, &wanted.ClusterRoles[i]) {
			t.Errorf("clusterrole %s: create %s", wanted.ClusterRoles[i].Name, asJSON(r.Object))
		}
	}
	for i := range wanted.ClusterRoleBindings {
		if r := ReconcileClusterRoleBinding(&stored.ClusterRoleBindings[i], &wanted.ClusterRoleBindings[i]); r.Operation != OpNone {
			t.Errorf("clusterrolebinding %s: %s", wanted.ClusterRoleBindings[i].Name, r.Operation)
		}
	}
	for i := range wanted.Roles {
		if r := ReconcileRole(&stored.Roles[i], &wanted.Roles[i]); r.Operation != OpNone {
			t.Errorf("role %s: %s", wanted.Roles[i].Name, r.Operation)
		}
	}
	for i := range wanted.RoleBindings {
		if r := ReconcileRoleBinding(&stored.RoleBindings[i], &wanted.RoleBindings[i]); r.Operation != OpNone {
			t.Errorf("rolebinding %s: %s", wanted.RoleBindings[i].Name, r.Operation)
		}
	}
}

// atoms splits r into the one-verb parts reconciliation appends: all of
// them are missing from no rules at all.
func atoms(r rbacv1.PolicyRule) []rbacv1.PolicyRule {
	_, parts := rbac.Covers(nil, []rbacv1.PolicyRule{r})
	return parts
}
