package clusterroleaggregation_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
	"github.com/setpoint-dev/setpoint/pkg/envtest"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/clusterroleaggregation"
)

// golden reads the rules kube-controller-manager v1.33 gave a default
// aggregate (kubectl get clusterrole NAME -o json | jq .rules, on the
// oracle with the clusterrole-aggregation controller).
func golden(t *testing.T, name string) []rbacv1.PolicyRule {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var rules []rbacv1.PolicyRule
	if err := json.Unmarshal(b, &rules); err != nil {
		t.Fatal(err)
	}
	return rules
}

// rulesAre returns nil once the ClusterRole name has exactly want (nil
// for none), in order.
func rulesAre(t *testing.T, c *client.Client, name string, want []rbacv1.PolicyRule) func() error {
	return func() error {
		r := &rbacv1.ClusterRole{}
		if err := c.Get(t.Context(), types.NamespacedName{Name: name}, r); err != nil {
			return err
		}
		if !reflect.DeepEqual(r.Rules, want) {
			got, _ := json.Marshal(r.Rules)
			exp, _ := json.Marshal(want)
			return fmt.Errorf("%s's rules:\n got  %s\n want %s", name, got, exp)
		}
		return nil
	}
}

// rulesOwner is who owns name's rules in its managedFields, and how.
func rulesOwner(t *testing.T, c *client.Client, name string) (manager string, op metav1.ManagedFieldsOperationType) {
	t.Helper()
	r := &rbacv1.ClusterRole{}
	if err := c.Get(t.Context(), types.NamespacedName{Name: name}, r); err != nil {
		t.Fatal(err)
	}
	for _, f := range r.ManagedFields {
		var fields map[string]any
		if f.FieldsV1 == nil || json.Unmarshal(f.FieldsV1.GetRawBytes(), &fields) != nil {
			continue
		}
		if _, ok := fields["f:rules"]; ok {
			return f.Manager, f.Operation
		}
	}
	return "", ""
}

// TestDefaultRoles: admin, edit and view get kube's rules, in kube's
// order; a role labelled to aggregate to view extends view and through
// it edit and admin, and leaves them when it is deleted.
func TestDefaultRoles(t *testing.T) {
	env := envtest.Start(t)
	c := env.Client()
	ctx := t.Context()
	view, edit, admin := golden(t, "view"), golden(t, "edit"), golden(t, "admin")
	for name, want := range map[string][]rbacv1.PolicyRule{"view": view, "edit": edit, "admin": admin} {
		envtest.Eventually(t, name+"'s aggregated rules", rulesAre(t, c, name, want))
		if m, op := rulesOwner(t, c, name); m != clusterroleaggregation.FieldManager || op != metav1.ManagedFieldsOperationApply {
			t.Errorf("%s's rules owned by %q (%s), want %q (Apply)", name, m, op, clusterroleaggregation.FieldManager)
		}
	}

	// Named after system:aggregate-to-view, so its rule comes last.
	widgets := rbacv1.PolicyRule{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{"example.com"}, Resources: []string{"widgets"}}
	extra := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets-view", Labels: map[string]string{"rbac.authorization.k8s.io/aggregate-to-view": "true"}},
		Rules:      []rbacv1.PolicyRule{widgets, view[0]},
	}
	if err := c.Create(ctx, extra); err != nil {
		t.Fatal(err)
	}
	envtest.Eventually(t, "view with the widgets rule", rulesAre(t, c, "view", append(view[:len(view):len(view)], widgets)))
	envtest.Eventually(t, "edit and admin with the widgets rule", func() error {
		return errors.Join(contains(t, c, "edit", widgets), contains(t, c, "admin", widgets))
	})

	if err := c.Delete(ctx, extra); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]rbacv1.PolicyRule{"view": view, "edit": edit, "admin": admin} {
		envtest.Eventually(t, name+" without the widgets rule", rulesAre(t, c, name, want))
	}
}

func contains(t *testing.T, c *client.Client, name string, want rbacv1.PolicyRule) error {
	r := &rbacv1.ClusterRole{}
	if err := c.Get(t.Context(), types.NamespacedName{Name: name}, r); err != nil {
		return err
	}
	for _, got := range r.Rules {
		if reflect.DeepEqual(got, want) {
			return nil
		}
	}
	return fmt.Errorf("%s lacks %v", name, want)
}

// TestCustomAggregate replays what kube-controller-manager v1.33 was
// seen doing to an aggregate of two selectors: rules it never wrote
// stay while nothing matches; matches replace them with their union
// (selectors in turn, roles by name, repeats dropped), taken from their
// creator by force; when the matches go, so do the rules.
func TestCustomAggregate(t *testing.T) {
	env := envtest.Start(t)
	c := env.Client()
	ctx := t.Context()
	pods := rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}
	secrets := rbacv1.PolicyRule{Verbs: []string{"list"}, APIGroups: []string{""}, Resources: []string{"secrets"}}
	deploys := rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{"apps"}, Resources: []string{"deployments"}}
	x := rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/x"}}
	// The controller is at work once view is filled in, so it looks at
	// agg within the Consistently below.
	envtest.Eventually(t, "view's aggregated rules", rulesAre(t, c, "view", golden(t, "view")))

	agg := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "agg"},
		AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{
			{MatchLabels: map[string]string{"team": "yes"}},
			{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"1", "2"}}}},
		}},
		Rules: []rbacv1.PolicyRule{pods},
	}
	if err := c.Create(ctx, agg); err != nil {
		t.Fatal(err)
	}
	envtest.Consistently(t, "the creator's rules kept", rulesAre(t, c, "agg", []rbacv1.PolicyRule{pods}))

	members := []*rbacv1.ClusterRole{
		{ObjectMeta: metav1.ObjectMeta{Name: "member-b", Labels: map[string]string{"team": "yes"}}, Rules: []rbacv1.PolicyRule{secrets, pods}},
		{ObjectMeta: metav1.ObjectMeta{Name: "member-a", Labels: map[string]string{"team": "yes", "tier": "2"}}, Rules: []rbacv1.PolicyRule{pods, x}},
		{ObjectMeta: metav1.ObjectMeta{Name: "member-0", Labels: map[string]string{"tier": "1"}}, Rules: []rbacv1.PolicyRule{secrets, deploys}},
	}
	for _, m := range members {
		if err := c.Create(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	envtest.Eventually(t, "the members' union", rulesAre(t, c, "agg", []rbacv1.PolicyRule{pods, x, secrets, deploys}))
	if m, _ := rulesOwner(t, c, "agg"); m != clusterroleaggregation.FieldManager {
		t.Errorf("agg's rules owned by %q, want %q", m, clusterroleaggregation.FieldManager)
	}

	for _, m := range members {
		if err := c.Delete(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	envtest.Eventually(t, "no rules once the members are gone", rulesAre(t, c, "agg", nil))
	if m, _ := rulesOwner(t, c, "agg"); m != "" {
		t.Errorf("agg's absent rules owned by %q", m)
	}
}
