package client_test

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/client"
)

func TestDelete(t *testing.T) {
	c, _ := start(t, client.Options{})
	ctx := ctx(t)
	createNamespace(t, c, "demo")
	cm := configMap("demo", "cm", map[string]string{"a": "1"})
	if err := c.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	otherUID, oldRV := types.UID("not-the-uid"), "1"
	rv := cm.ResourceVersion
	tests := []struct {
		name       string
		opts       []client.DeleteOption
		wantErr    func(error) bool
		wantExists bool
	}{
		{"uid precondition fails", []client.DeleteOption{client.Preconditions{UID: &otherUID}}, client.IsConflict, true},
		{"resourceVersion precondition fails", []client.DeleteOption{client.Preconditions{ResourceVersion: &oldRV}}, client.IsConflict, true},
		{"dry run", []client.DeleteOption{client.DryRunAll}, nil, true},
		{"bad propagation policy", []client.DeleteOption{client.PropagationPolicy("Sideways")}, client.IsBadRequest, true},
		{"preconditions hold", []client.DeleteOption{
			client.Preconditions{UID: &cm.UID, ResourceVersion: &rv},
			client.PropagationPolicy(metav1.DeletePropagationBackground),
			client.GracePeriodSeconds(0),
		}, nil, false},
		{"already gone", nil, client.IsNotFound, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := c.Delete(ctx, configMap("demo", "cm", nil), tt.opts...)
			switch {
			case tt.wantErr == nil && err != nil:
				t.Fatalf("Delete: %v", err)
			case tt.wantErr != nil && !tt.wantErr(err):
				t.Fatalf("Delete: got %v, want a different error", err)
			}
			getErr := c.Get(ctx, types.NamespacedName{Namespace: "demo", Name: "cm"}, &corev1.ConfigMap{})
			if got := getErr == nil; got != tt.wantExists {
				t.Errorf("exists after delete: got %v (%v), want %v", got, getErr, tt.wantExists)
			}
		})
	}
}

func TestDeleteAllOf(t *testing.T) {
	c, _ := start(t, client.Options{})
	ctx := ctx(t)
	createNamespace(t, c, "demo")
	createNamespace(t, c, "other")
	for _, o := range []struct{ ns, name, app string }{
		{"demo", "a1", "a"}, {"demo", "a2", "a"}, {"demo", "b1", "b"}, {"other", "a3", "a"},
	} {
		cm := configMap(o.ns, o.name, nil)
		cm.Labels = map[string]string{"app": o.app}
		if err := c.Create(ctx, cm); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		opts []client.DeleteAllOfOption
		want []string // namespace/name left, sorted
	}{
		{"dry run deletes nothing", []client.DeleteAllOfOption{client.InNamespace("demo"), client.MatchingLabels{"app": "a"}, client.DryRunAll},
			[]string{"demo/a1", "demo/a2", "demo/b1", "other/a3"}},
		{"label selector in one namespace", []client.DeleteAllOfOption{client.InNamespace("demo"), client.MatchingLabels{"app": "a"}},
			[]string{"demo/b1", "other/a3"}},
		// Background: Foreground would leave the object to a garbage
		// collector, which this test server does not run.
		{"selector string", []client.DeleteAllOfOption{client.InNamespace("demo"), client.LabelSelector("app in (b)"),
			client.PropagationPolicy(metav1.DeletePropagationBackground)}, []string{"other/a3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := c.DeleteAllOf(ctx, &corev1.ConfigMap{}, tt.opts...); err != nil {
				t.Fatalf("DeleteAllOf: %v", err)
			}
			var list corev1.ConfigMapList
			if err := c.List(ctx, &list); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, cm := range list.Items {
				got = append(got, cm.Namespace+"/"+cm.Name)
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("left: got %v, want %v", got, tt.want)
			}
		})
	}
}
