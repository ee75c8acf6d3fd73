package rbac

import (
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/server/authorizer"
)

// list splits a comma-separated list; "" is no list, an element "-"
// is "" (the core API group, or an empty name).
func list(s string) []string {
	if s == "" {
		return nil
	}
	out := strings.Split(s, ",")
	for i, e := range out {
		if e == "-" {
			out[i] = ""
		}
	}
	return out
}

// rule builds a resource rule from comma-separated verbs, groups,
// resources and names.
func rule(verbs, groups, resources, names string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: list(verbs), APIGroups: list(groups), Resources: list(resources), ResourceNames: list(names)}
}

func urlRule(verbs, urls string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: list(verbs), NonResourceURLs: list(urls)}
}

// res is a resource request; resource may be "resource/subresource".
func res(verb, group, resource, name, namespace string) authorizer.Attributes {
	r, sub, _ := strings.Cut(resource, "/")
	return authorizer.Attributes{ResourceRequest: true, Verb: verb, APIGroup: group, Resource: r, Subresource: sub, Name: name, Namespace: namespace}
}

func path(verb, p string) authorizer.Attributes {
	return authorizer.Attributes{Verb: verb, Path: p}
}

func as(a authorizer.Attributes, name string, groups ...string) authorizer.Attributes {
	a.User = authenticationv1.UserInfo{Username: name, Groups: groups}
	return a
}

func clusterRole(name string, rules ...rbacv1.PolicyRule) rbacv1.ClusterRole {
	return rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}
}

func role(namespace, name string, rules ...rbacv1.PolicyRule) rbacv1.Role {
	return rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, Rules: rules}
}

// subject parses "Kind:name" or "ServiceAccount:ns/name".
func subject(s string) rbacv1.Subject {
	kind, name, _ := strings.Cut(s, ":")
	switch kind {
	case rbacv1.ServiceAccountKind:
		ns, n, ok := strings.Cut(name, "/")
		if !ok {
			return rbacv1.Subject{Kind: kind, Name: name}
		}
		return rbacv1.Subject{Kind: kind, Namespace: ns, Name: n}
	default:
		return rbacv1.Subject{Kind: kind, APIGroup: rbacv1.GroupName, Name: name}
	}
}

func subjects(ss []string) []rbacv1.Subject {
	var out []rbacv1.Subject
	for _, s := range ss {
		out = append(out, subject(s))
	}
	return out
}

func clusterBinding(name, clusterRole string, ss ...string) rbacv1.ClusterRoleBinding {
	return rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: clusterRole},
		Subjects:   subjects(ss),
	}
}

// binding binds roleRef ("Role:name" or "ClusterRole:name") in namespace.
func roleBinding(namespace, name, roleRef string, ss ...string) rbacv1.RoleBinding {
	kind, rname, _ := strings.Cut(roleRef, ":")
	return rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: kind, Name: rname},
		Subjects:   subjects(ss),
	}
}
