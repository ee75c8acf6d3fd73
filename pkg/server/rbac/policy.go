package rbac

import (
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
)

// Objects are the RBAC objects a Policy is built from.
type Objects struct {
	ClusterRoles        []rbacv1.ClusterRole
	ClusterRoleBindings []rbacv1.ClusterRoleBinding
	Roles               []rbacv1.Role
	RoleBindings        []rbacv1.RoleBinding
}

// Policy is an immutable index of Objects: bindings by the subjects
// they name and roles by name, so a decision looks only at the
// bindings that can apply to the user. Bindings keep the order they had
// in Objects, which decides which binding an allow reason names.
type Policy struct {
	clusterRoles map[string][]rbacv1.PolicyRule
	roles        map[roleKey][]rbacv1.PolicyRule

	clusterBindings []binding
	clusterIndex    subjectIndex
	// namespaces holds each namespace's RoleBindings.
	namespaces map[string]*namespaceBindings
}

type roleKey struct{ namespace, name string }

// binding is what a decision reads of a RoleBinding or
// ClusterRoleBinding; namespace is empty for the latter.
type binding struct {
	name, namespace string
	roleRef         rbacv1.RoleRef
	subjects        []rbacv1.Subject
}

type namespaceBindings struct {
	bindings []binding
	index    subjectIndex
}

// subjectIndex maps a user name (a User subject's name, or a
// ServiceAccount subject's "system:serviceaccount:<ns>:<name>") and a
// group name to the positions of the bindings naming it, ascending.
type subjectIndex struct {
	users  map[string][]int
	groups map[string][]int
}

// saUserPrefix begins a ServiceAccount's user name.
const saUserPrefix = "system:serviceaccount:"

// NewPolicy indexes o. It copies what it keeps, so o may change after.
func NewPolicy(o Objects) *Policy {
	p := &Policy{
		clusterRoles: make(map[string][]rbacv1.PolicyRule, len(o.ClusterRoles)),
		roles:        make(map[roleKey][]rbacv1.PolicyRule, len(o.Roles)),
		namespaces:   make(map[string]*namespaceBindings),
	}
	for i := range o.ClusterRoles {
		cr := &o.ClusterRoles[i]
		if _, dup := p.clusterRoles[cr.Name]; !dup {
			p.clusterRoles[cr.Name] = copyRules(cr.Rules)
		}
	}
	for i := range o.Roles {
		r := &o.Roles[i]
		k := roleKey{r.Namespace, r.Name}
		if _, dup := p.roles[k]; !dup {
			p.roles[k] = copyRules(r.Rules)
		}
	}
	for i := range o.ClusterRoleBindings {
		b := &o.ClusterRoleBindings[i]
		p.clusterBindings = append(p.clusterBindings, binding{name: b.Name, roleRef: b.RoleRef, subjects: copySubjects(b.Subjects)})
		p.clusterIndex.add(len(p.clusterBindings)-1, b.Subjects, "")
	}
	for i := range o.RoleBindings {
		b := &o.RoleBindings[i]
		nb := p.namespaces[b.Namespace]
		if nb == nil {
			nb = &namespaceBindings{}
			p.namespaces[b.Namespace] = nb
		}
		nb.bindings = append(nb.bindings, binding{name: b.Name, namespace: b.Namespace, roleRef: b.RoleRef, subjects: copySubjects(b.Subjects)})
		nb.index.add(len(nb.bindings)-1, b.Subjects, b.Namespace)
	}
	return p
}

func copyRules(rules []rbacv1.PolicyRule) []rbacv1.PolicyRule {
	out := make([]rbacv1.PolicyRule, len(rules))
	for i := range rules {
		rules[i].DeepCopyInto(&out[i])
	}
	return out
}

func copySubjects(s []rbacv1.Subject) []rbacv1.Subject { return slices.Clone(s) }

// add indexes binding i under the subjects that can apply to some user
// (see appliesTo); namespace is the binding's, empty for a
// ClusterRoleBinding.
func (x *subjectIndex) add(i int, subjects []rbacv1.Subject, namespace string) {
	for _, s := range subjects {
		switch s.Kind {
		case rbacv1.UserKind:
			x.users = addTo(x.users, s.Name, i)
		case rbacv1.GroupKind:
			x.groups = addTo(x.groups, s.Name, i)
		case rbacv1.ServiceAccountKind:
			if ns := serviceAccountNamespace(s, namespace); ns != "" {
				x.users = addTo(x.users, saUserPrefix+ns+":"+s.Name, i)
			}
		}
	}
}

func addTo(m map[string][]int, k string, i int) map[string][]int {
	if m == nil {
		m = make(map[string][]int)
	}
	// A binding naming the user twice is indexed once.
	if l := m[k]; len(l) == 0 || l[len(l)-1] != i {
		m[k] = append(l, i)
	}
	return m
}

// candidates returns the positions of the bindings that may apply to a
// user, ascending and without repeats.
func (x *subjectIndex) candidates(username string, groups []string) []int {
	out := x.users[username]
	merged := false
	for _, g := range groups {
		l := x.groups[g]
		if len(l) == 0 {
			continue
		}
		if len(out) == 0 {
			out = l
			continue
		}
		if !merged {
			out = slices.Clone(out)
			merged = true
		}
		out = append(out, l...)
	}
	if merged {
		slices.Sort(out)
		out = slices.Compact(out)
	}
	return out
}

// serviceAccountNamespace is the namespace a ServiceAccount subject
// names: its own, else the binding's (a RoleBinding may name a
// ServiceAccount of its namespace without one). Empty means the subject
// names no ServiceAccount.
func serviceAccountNamespace(s rbacv1.Subject, bindingNamespace string) string {
	if s.Namespace != "" {
		return s.Namespace
	}
	return bindingNamespace
}
