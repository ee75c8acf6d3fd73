package bootstrap

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The golden files hold what a real v1.33 kube-apiserver wrote on a fresh
// etcd, dumped by testdata/dump.sh; Default must match them exactly.
func TestDefaultMatchesKube(t *testing.T) {
	p := Default()
	t.Run("clusterroles", func(t *testing.T) {
		compareGolden(t, "clusterroles.json", p.ClusterRoles, func(o rbacv1.ClusterRole) *metav1.ObjectMeta { return &o.ObjectMeta })
	})
	t.Run("clusterrolebindings", func(t *testing.T) {
		compareGolden(t, "clusterrolebindings.json", p.ClusterRoleBindings, func(o rbacv1.ClusterRoleBinding) *metav1.ObjectMeta { return &o.ObjectMeta })
	})
	t.Run("roles", func(t *testing.T) {
		compareGolden(t, "roles.json", p.Roles, func(o rbacv1.Role) *metav1.ObjectMeta { return &o.ObjectMeta })
	})
	t.Run("rolebindings", func(t *testing.T) {
		compareGolden(t, "rolebindings.json", p.RoleBindings, func(o rbacv1.RoleBinding) *metav1.ObjectMeta { return &o.ObjectMeta })
	})
}

func compareGolden[T any](t *testing.T, file string, got []T, meta func(T) *metav1.ObjectMeta) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	var want []T
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields() // a field the golden has and T drops is drift too
	if err := dec.Decode(&want); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	key := func(o T) string { m := meta(o); return m.Namespace + "/" + m.Name }
	byKey := func(a, b T) int { return strings.Compare(key(a), key(b)) }
	got = slices.Clone(got)
	slices.SortStableFunc(got, byKey)
	slices.SortStableFunc(want, byKey)

	gotKeys, wantKeys := keys(got, key), keys(want, key)
	for _, k := range wantKeys {
		if !slices.Contains(gotKeys, k) {
			t.Errorf("missing %s", k)
		}
	}
	for i, k := range gotKeys {
		if !slices.Contains(wantKeys, k) {
			t.Errorf("extra %s", k)
		}
		if i > 0 && gotKeys[i-1] == k {
			t.Errorf("duplicate %s", k)
		}
	}
	for _, g := range got {
		i := slices.IndexFunc(want, func(w T) bool { return key(w) == key(g) })
		if i < 0 {
			continue
		}
		if !reflect.DeepEqual(g, want[i]) {
			gj, _ := json.Marshal(g)
			wj, _ := json.Marshal(want[i])
			t.Errorf("%s differs\n got: %s\nwant: %s", key(g), gj, wj)
		}
	}
}

func keys[T any](objs []T, key func(T) string) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = key(o)
	}
	return out
}

// Each call must hand out objects of its own: the hook and tests change
// what they get.
func TestDefaultIsFresh(t *testing.T) {
	a := Default()
	a.ClusterRoles[0].Rules[0].Verbs[0] = "changed"
	a.ClusterRoles[0].Labels["x"] = "y"
	a.RoleBindings[0].Subjects[0].Name = "changed"
	b := Default()
	if b.ClusterRoles[0].Rules[0].Verbs[0] == "changed" || b.ClusterRoles[0].Labels["x"] == "y" ||
		b.RoleBindings[0].Subjects[0].Name == "changed" {
		t.Fatal("Default shares objects between calls")
	}
}
