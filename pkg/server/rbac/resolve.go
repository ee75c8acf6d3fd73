package rbac

import (
	"fmt"

	authenticationv1 "k8s.io/api/authentication/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/setpoint-dev/setpoint/pkg/server/authorizer"
)

// source is the binding, and the subject of it, that granted a rule.
type source struct {
	b       *binding
	subject int
}

// String words the source as kube's allow reasons do, e.g.
// `ClusterRoleBinding "admins" of ClusterRole "admin" to Group "ops"` or
// `RoleBinding "view/dev" of Role "view" to ServiceAccount "ci/dev"`.
func (s source) String() string {
	kind, name := "ClusterRoleBinding", s.b.name
	if s.b.namespace != "" {
		kind, name = "RoleBinding", s.b.name+"/"+s.b.namespace
	}
	return fmt.Sprintf("%s %q of %s %q to %s", kind, name, s.b.roleRef.Kind, s.b.roleRef.Name, describeSubject(s.b.subjects[s.subject], s.b.namespace))
}

func describeSubject(s rbacv1.Subject, bindingNamespace string) string {
	if s.Kind == rbacv1.ServiceAccountKind {
		// Kube writes name before namespace here.
		return fmt.Sprintf("%s %q", s.Kind, s.Name+"/"+serviceAccountNamespace(s, bindingNamespace))
	}
	return fmt.Sprintf("%s %q", s.Kind, s.Name)
}

// visitor sees each rule granted to a user with its source, or a
// resolution error (rule nil); returning false stops the walk.
type visitor func(src source, rule *rbacv1.PolicyRule, err error) bool

// visit walks the rules u holds: those of the ClusterRoleBindings
// naming u, then, when namespace is set, those of namespace's
// RoleBindings naming u, in binding order.
func (p *Policy) visit(u *authenticationv1.UserInfo, namespace string, f visitor) {
	if !p.visitBindings(u, p.clusterBindings, &p.clusterIndex, "", f) || namespace == "" {
		return
	}
	if nb := p.namespaces[namespace]; nb != nil {
		p.visitBindings(u, nb.bindings, &nb.index, namespace, f)
	}
}

func (p *Policy) visitBindings(u *authenticationv1.UserInfo, bindings []binding, x *subjectIndex, namespace string, f visitor) bool {
	for _, i := range x.candidates(u.Username, u.Groups) {
		b := &bindings[i]
		subject, ok := appliesTo(u, b.subjects, namespace)
		if !ok {
			continue
		}
		rules, err := p.roleRules(b.roleRef, namespace)
		if err != nil {
			if !f(source{}, nil, err) {
				return false
			}
			continue
		}
		src := source{b: b, subject: subject}
		for j := range rules {
			if !f(src, &rules[j], nil) {
				return false
			}
		}
	}
	return true
}

// appliesTo returns the first of subjects naming u. namespace is the
// binding's: it is the namespace of its ServiceAccount subjects that
// name none.
func appliesTo(u *authenticationv1.UserInfo, subjects []rbacv1.Subject, namespace string) (int, bool) {
	for i, s := range subjects {
		if subjectIs(u, s, namespace) {
			return i, true
		}
	}
	return 0, false
}

func subjectIs(u *authenticationv1.UserInfo, s rbacv1.Subject, namespace string) bool {
	switch s.Kind {
	case rbacv1.UserKind:
		return u.Username == s.Name
	case rbacv1.GroupKind:
		for _, g := range u.Groups {
			if g == s.Name {
				return true
			}
		}
		return false
	case rbacv1.ServiceAccountKind:
		ns := serviceAccountNamespace(s, namespace)
		if ns == "" {
			return false
		}
		n := u.Username
		return len(n) == len(saUserPrefix)+len(ns)+1+len(s.Name) &&
			n[:len(saUserPrefix)] == saUserPrefix &&
			n[len(saUserPrefix):len(saUserPrefix)+len(ns)] == ns &&
			n[len(saUserPrefix)+len(ns)] == ':' &&
			n[len(n)-len(s.Name):] == s.Name
	}
	return false
}

// roleRules returns the rules of the role ref names; a RoleBinding
// (namespace set) may name a ClusterRole, whose rules then apply in
// its namespace only.
func (p *Policy) roleRules(ref rbacv1.RoleRef, namespace string) ([]rbacv1.PolicyRule, error) {
	switch ref.Kind {
	case "Role":
		if rules, ok := p.roles[roleKey{namespace, ref.Name}]; ok {
			return rules, nil
		}
		return nil, &RoleNotFoundError{Kind: ref.Kind, Namespace: namespace, Name: ref.Name}
	case "ClusterRole":
		if rules, ok := p.clusterRoles[ref.Name]; ok {
			return rules, nil
		}
		return nil, &RoleNotFoundError{Kind: ref.Kind, Name: ref.Name}
	}
	return nil, &UnsupportedRoleRefError{Kind: ref.Kind}
}

// Authorize decides a as kube's RBAC authorizer does. An allow's reason
// names the first binding granting it ("RBAC: allowed by ..."). A
// denial's reason is empty, unless some bindings naming the user could
// not be resolved: then it is "RBAC: " and those errors, which err
// also returns as a *ResolutionError. Resolution errors never deny by
// themselves: another binding may still allow.
//
// A non-resource request is decided by ClusterRoleBindings only, even
// if a carries a namespace.
func (p *Policy) Authorize(a authorizer.Attributes) (allowed bool, reason string, err error) {
	namespace := a.Namespace
	if !a.ResourceRequest {
		namespace = ""
	}
	var (
		errs []error
		by   source
	)
	p.visit(&a.User, namespace, func(src source, rule *rbacv1.PolicyRule, err error) bool {
		if rule != nil && RuleAllows(a, *rule) {
			allowed, by = true, src
			return false
		}
		if err != nil {
			errs = append(errs, err)
		}
		return true
	})
	if allowed {
		return true, "RBAC: allowed by " + by.String(), nil
	}
	if err := resolutionError(errs); err != nil {
		return false, "RBAC: " + err.Error(), err
	}
	return false, "", nil
}

// RulesFor lists the rules u holds cluster-wide and, when namespace is
// set, in namespace. Bindings whose role cannot be found are reported
// in err (a *ResolutionError); the rules found are returned regardless.
// The rules are copies the caller may change.
func (p *Policy) RulesFor(u authenticationv1.UserInfo, namespace string) ([]rbacv1.PolicyRule, error) {
	var (
		rules []rbacv1.PolicyRule
		errs  []error
	)
	p.visit(&u, namespace, func(_ source, rule *rbacv1.PolicyRule, err error) bool {
		if rule != nil {
			rules = append(rules, *rule.DeepCopy())
		}
		if err != nil {
			errs = append(errs, err)
		}
		return true
	})
	return rules, resolutionError(errs)
}
