package rbac

import (
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/setpoint-dev/setpoint/pkg/server/authorizer"
)

// RuleAllows reports whether rule r grants the request a. A resource
// request must match r's verbs, API groups, resources and resource
// names; a non-resource request only its verbs and non-resource URLs.
func RuleAllows(a authorizer.Attributes, r rbacv1.PolicyRule) bool {
	if !verbMatches(r.Verbs, a.Verb) {
		return false
	}
	if !a.ResourceRequest {
		return urlMatches(r.NonResourceURLs, a.Path)
	}
	return groupMatches(r.APIGroups, a.APIGroup) &&
		resourceMatches(r.Resources, a.Resource, a.Subresource) &&
		nameMatches(r.ResourceNames, a.Name)
}

func verbMatches(verbs []string, verb string) bool {
	for _, v := range verbs {
		if v == rbacv1.VerbAll || v == verb {
			return true
		}
	}
	return false
}

func groupMatches(groups []string, group string) bool {
	for _, g := range groups {
		if g == rbacv1.APIGroupAll || g == group {
			return true
		}
	}
	return false
}

// resourceMatches matches "*", the exact "resource" or
// "resource/subresource", and "*/subresource" for any resource's
// subresource. Kube has no "resource/*" wildcard: such an entry only
// matches a subresource literally named "*".
func resourceMatches(resources []string, resource, subresource string) bool {
	for _, r := range resources {
		switch {
		case r == rbacv1.ResourceAll:
			return true
		case subresource == "":
			if r == resource {
				return true
			}
		case isCombined(r, resource, subresource):
			return true
		case len(r) == len(subresource)+2 && r[0] == '*' && r[1] == '/' && r[2:] == subresource:
			return true
		}
	}
	return false
}

// isCombined reports whether r is "resource/subresource", without
// building that string on every check.
func isCombined(r, resource, subresource string) bool {
	return len(r) == len(resource)+1+len(subresource) &&
		strings.HasPrefix(r, resource) && r[len(resource)] == '/' && strings.HasSuffix(r, subresource)
}

// nameMatches: an empty list allows every name; a non-empty one only
// the names it lists, so never a request without a name (list, create)
// unless it lists "".
func nameMatches(names []string, name string) bool {
	if len(names) == 0 {
		return true
	}
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// urlMatches matches "*", the exact path, and a trailing "*" as a
// prefix match ("/healthz/*" allows "/healthz/etcd" but not "/healthz").
func urlMatches(urls []string, path string) bool {
	for _, u := range urls {
		if u == rbacv1.NonResourceAll || u == path || urlPrefixCovers(u, path) {
			return true
		}
	}
	return false
}

func urlPrefixCovers(pattern, path string) bool {
	return strings.HasSuffix(pattern, "*") && strings.HasPrefix(path, strings.TrimRight(pattern, "*"))
}
