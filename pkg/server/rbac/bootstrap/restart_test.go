package bootstrap

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
)

// store is what storage holds, keyed as testdata/reconcile/gen.sh keys
// objects: Kind/name or Kind/namespace/name.
type store map[string]any

func keyOf(kind, namespace, name string) string {
	if namespace != "" {
		return kind + "/" + namespace + "/" + name
	}
	return kind + "/" + name
}

func get[T any](s store, kind, namespace, name string) *T {
	o, _ := s[keyOf(kind, namespace, name)].(*T)
	return o
}

func defaultStore() store {
	s := store{}
	p := Default()
	for i := range p.ClusterRoles {
		s[keyOf("ClusterRole", "", p.ClusterRoles[i].Name)] = &p.ClusterRoles[i]
	}
	for i := range p.ClusterRoleBindings {
		s[keyOf("ClusterRoleBinding", "", p.ClusterRoleBindings[i].Name)] = &p.ClusterRoleBindings[i]
	}
	for i := range p.Roles {
		s[keyOf("Role", p.Roles[i].Namespace, p.Roles[i].Name)] = &p.Roles[i]
	}
	for i := range p.RoleBindings {
		s[keyOf("RoleBinding", p.RoleBindings[i].Namespace, p.RoleBindings[i].Name)] = &p.RoleBindings[i]
	}
	return s
}

// applyDiff loads a file of gen.sh: the defaults, less the absent ones,
// with the changed ones as stored.
func applyDiff(t *testing.T, s store, file string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "reconcile", file))
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Absent  []string          `json:"absent"`
		Changed []json.RawMessage `json:"changed"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	for _, k := range d.Absent {
		delete(s, k)
	}
	for _, c := range d.Changed {
		var head struct {
			Kind     string `json:"kind"`
			Metadata struct{ Name, Namespace string }
		}
		if err := json.Unmarshal(c, &head); err != nil {
			t.Fatal(err)
		}
		var obj any
		switch head.Kind {
		case "ClusterRole":
			obj = &rbacv1.ClusterRole{}
		case "ClusterRoleBinding":
			obj = &rbacv1.ClusterRoleBinding{}
		case "Role":
			obj = &rbacv1.Role{}
		case "RoleBinding":
			obj = &rbacv1.RoleBinding{}
		default:
			t.Fatalf("%s: kind %q", file, head.Kind)
		}
		dec := json.NewDecoder(bytes.NewReader(c))
		dec.DisallowUnknownFields()
		if err := dec.Decode(obj); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		s[keyOf(head.Kind, head.Metadata.Namespace, head.Metadata.Name)] = obj
	}
}

// startHook does to s what the apiserver's RBAC post-start hook does to
// storage: carry legacy objects over, then reconcile every default.
func startHook(s store) {
	for _, a := range Aggregations() {
		if get[rbacv1.ClusterRole](s, "ClusterRole", "", a.Into) != nil {
			continue
		}
		if m := MigrateAggregation(a, get[rbacv1.ClusterRole](s, "ClusterRole", "", a.From)); m != nil {
			s[keyOf("ClusterRole", "", m.Name)] = m
		}
	}
	for _, sp := range Splits() {
		from := get[rbacv1.ClusterRoleBinding](s, "ClusterRoleBinding", "", sp.From)
		if from == nil || get[rbacv1.ClusterRoleBinding](s, "ClusterRoleBinding", "", sp.Into.Name) != nil {
			continue
		}
		s[keyOf("ClusterRoleBinding", "", sp.Into.Name)] = SplitBinding(sp, from)
	}
	p := Default()
	for i, w := range p.ClusterRoles {
		if r := ReconcileClusterRole(get[rbacv1.ClusterRole](s, "ClusterRole", "", w.Name), &p.ClusterRoles[i]); r.Write() {
			s[keyOf("ClusterRole", "", w.Name)] = r.Object
		}
	}
	for i, w := range p.ClusterRoleBindings {
		if r := ReconcileClusterRoleBinding(get[rbacv1.ClusterRoleBinding](s, "ClusterRoleBinding", "", w.Name), &p.ClusterRoleBindings[i]); r.Write() {
			s[keyOf("ClusterRoleBinding", "", w.Name)] = r.Object
		}
	}
	for i, w := range p.Roles {
		if r := ReconcileRole(get[rbacv1.Role](s, "Role", w.Namespace, w.Name), &p.Roles[i]); r.Write() {
			s[keyOf("Role", w.Namespace, w.Name)] = r.Object
		}
	}
	for i, w := range p.RoleBindings {
		if r := ReconcileRoleBinding(get[rbacv1.RoleBinding](s, "RoleBinding", w.Namespace, w.Name), &p.RoleBindings[i]); r.Write() {
			s[keyOf("RoleBinding", w.Namespace, w.Name)] = r.Object
		}
	}
}

// A real kube-apiserver restarted on storage whose defaults had been
// changed (testdata/reconcile/gen.sh) left after.json; the package must
// leave the same.
func TestRestartMatchesKube(t *testing.T) {
	got := defaultStore()
	applyDiff(t, got, "before.json")
	startHook(got)
	want := defaultStore()
	applyDiff(t, want, "after.json")

	var keys []string
	for k := range got {
		keys = append(keys, k)
	}
	for k := range want {
		if _, ok := got[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		g, w := got[k], want[k]
		switch {
		case w == nil:
			t.Errorf("%s: not in kube", k)
		case g == nil:
			t.Errorf("%s: missing", k)
		case !reflect.DeepEqual(g, w):
			t.Errorf("%s differs\n got: %s\nwant: %s", k, asJSON(g), asJSON(w))
		}
	}
}
