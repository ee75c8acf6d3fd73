package bootstrap

import (
	"reflect"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestMigrateAggregation(t *testing.T) {
	edit := Aggregation{From: "edit", Into: "system:aggregate-to-edit"}
	legacy := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "edit", UID: "u", ResourceVersion: "9", CreationTimestamp: metav1.NewTime(time.Unix(1, 0)),
			Labels: map[string]string{"a": "b"}, Annotations: map[string]string{"c": "d"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}},
		Rules: []rbacv1.PolicyRule{res("get", "example.com", "widgets")},
	}
	tests := []struct {
		name string
		from *rbacv1.ClusterRole
		want *rbacv1.ClusterRole
	}{
		{name: "no legacy role"},
		{name: "legacy role already aggregates", from: &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "edit"}, AggregationRule: aggRule(aggregateToEdit)}},
		{name: "legacy rules and metadata carried over", from: legacy, want: &rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: "system:aggregate-to-edit", Labels: map[string]string{"a": "b"}, Annotations: map[string]string{"c": "d"}},
			Rules:      []rbacv1.PolicyRule{res("get", "example.com", "widgets")},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MigrateAggregation(edit, tt.from); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("\n got: %s\nwant: %s", asJSON(got), asJSON(tt.want))
			}
		})
	}
	if legacy.Name != "edit" || legacy.UID != "u" {
		t.Error("legacy role was modified")
	}
}

func TestSplitBinding(t *testing.T) {
	splits := Splits()
	if len(splits) != 1 || splits[0].From != "system:discovery" || splits[0].Into.Name != "system:public-info-viewer" {
		t.Fatalf("splits = %s", asJSON(splits))
	}
	from := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "system:discovery", UID: "u", Labels: map[string]string{"a": "b"}, Annotations: map[string]string{"c": "d"}},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "system:discovery"},
		Subjects:   users("someone"),
	}
	want := splits[0].Into.DeepCopy()
	want.Labels, want.Annotations, want.Subjects = map[string]string{"a": "b"}, map[string]string{"c": "d"}, users("someone")
	if got := SplitBinding(splits[0], from); !reflect.DeepEqual(got, want) {
		t.Errorf("\n got: %s\nwant: %s", asJSON(got), asJSON(want))
	}
	if got := SplitBinding(splits[0], nil); got != nil {
		t.Errorf("without a source: %s", asJSON(got))
	}
}
