package rbac

import (
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/setpoint-dev/setpoint/pkg/server/authorizer"
)

// fuzzList splits a fuzzed field into a rule's list: "" is none, and
// "|" separates values (which may be empty).
func fuzzList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "|")
}

func fuzzRule(verbs, groups, resources, names, urls string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: fuzzList(verbs), APIGroups: fuzzList(groups), Resources: fuzzList(resources), ResourceNames: fuzzList(names), NonResourceURLs: fuzzList(urls)}
}

// atomOf is the rule granting exactly a: Covers([r], [atomOf(a)]) says
// whether r allows a, as RuleAllows does, except where the two
// disagree by design (see FuzzRuleAllows).
func atomOf(a authorizer.Attributes) rbacv1.PolicyRule {
	if !a.ResourceRequest {
		return rbacv1.PolicyRule{Verbs: []string{a.Verb}, NonResourceURLs: []string{a.Path}}
	}
	r := a.Resource
	if a.Subresource != "" {
		r += "/" + a.Subresource
	}
	atom := rbacv1.PolicyRule{Verbs: []string{a.Verb}, APIGroups: []string{a.APIGroup}, Resources: []string{r}}
	if a.Name != "" {
		atom.ResourceNames = []string{a.Name}
	}
	return atom
}

var ruleSeeds = [][5]string{
	{"get|list", "", "pods", "", ""},
	{"*", "*", "*", "", ""},
	{"update", "apps", "*/scale", "", ""},
	{"get", "", "pods/*|pods/log", "a|b", ""},
	{"get", "", "configmaps", "", ""},
	{"get", "", "", "", "/healthz/*|/metrics"},
	{"*", "", "", "", "*"},
	{"get", "", "secrets", "|x", ""},
}

func FuzzRuleAllows(f *testing.F) {
	attrs := []struct {
		verb, group, resource, sub, name, path string
		resourceRequest                        bool
	}{
		{"get", "", "pods", "", "p", "", true},
		{"list", "", "pods", "", "", "", true},
		{"update", "apps", "deployments", "scale", "d", "", true},
		{"get", "", "pods", "log", "a", "", true},
		{"get", "", "", "", "", "/healthz/etcd", false},
		{"post", "", "", "", "", "/metrics", false},
	}
	for i, r := range ruleSeeds {
		at := attrs[i%len(attrs)]
		f.Add(at.verb, at.group, at.resource, at.sub, at.name, at.path, at.resourceRequest, r[0], r[1], r[2], r[3], r[4])
	}
	f.Fuzz(func(t *testing.T, verb, group, resource, sub, name, path string, resourceRequest bool, rverbs, rgroups, rresources, rnames, rurls string) {
		// Real resource names hold no "/"; with one, "resource/sub"
		// is ambiguous and the two checks rightly differ.
		if strings.Contains(resource, "/") {
			return
		}
		a := authorizer.Attributes{Verb: verb, ResourceRequest: resourceRequest, APIGroup: group, Resource: resource, Subresource: sub, Name: name, Path: path}
		r := fuzzRule(rverbs, rgroups, rresources, rnames, rurls)
		allowed := RuleAllows(a, r)

		// RuleAllows agrees with Covers on the request's own atom, but
		// where kube's two checks read resource names differently: a
		// listed "" allows a nameless request, and names never limit
		// paths, while Covers wants no names at all for either.
		nameQuirk := len(r.ResourceNames) > 0 && (!resourceRequest || name == "" && slices.Contains(r.ResourceNames, ""))
		if covered, _ := Covers([]rbacv1.PolicyRule{r}, []rbacv1.PolicyRule{atomOf(a)}); !nameQuirk && covered != allowed {
			t.Errorf("RuleAllows(%+v, %s) = %v but Covers of its atom = %v", a, CompactString(r), allowed, covered)
		}

		// Widening a rule never takes a permission away.
		wide := *r.DeepCopy()
		wide.Verbs = append(wide.Verbs, "*")
		wide.APIGroups = append(wide.APIGroups, "*")
		wide.Resources = append(wide.Resources, "*")
		wide.NonResourceURLs = append(wide.NonResourceURLs, "*")
		if allowed && !RuleAllows(a, wide) {
			t.Errorf("widened %s refuses %+v", CompactString(wide), a)
		}
		if !RuleAllows(a, rbacv1.PolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}, NonResourceURLs: []string{"*"}}) {
			t.Errorf("the all-powerful rule refuses %+v", a)
		}
	})
}

func FuzzCovers(f *testing.F) {
	for i, o := range ruleSeeds {
		r := ruleSeeds[(i+3)%len(ruleSeeds)]
		f.Add(o[0], o[1], o[2], o[3], o[4], r[0], r[1], r[2], r[3], r[4], "get", "x")
		f.Add(o[0], o[1], o[2], o[3], o[4], o[0], o[1], o[2], o[3], o[4], "watch", "")
	}
	f.Fuzz(func(t *testing.T, overbs, ogroups, oresources, onames, ourls, rverbs, rgroups, rresources, rnames, rurls, verb, name string) {
		owner := []rbacv1.PolicyRule{fuzzRule(overbs, ogroups, oresources, onames, ourls), fuzzRule(rverbs, ogroups, rresources, "", "")}
		req := fuzzRule(rverbs, rgroups, rresources, rnames, rurls)

		for _, r := range append(slices.Clone(owner), req) {
			// A rule with both paths and names, which validation
			// refuses, does not cover its own paths in kube either:
			// names on the owner limit every atom.
			if len(r.NonResourceURLs) > 0 && len(r.ResourceNames) > 0 {
				continue
			}
			if ok, missing := Covers([]rbacv1.PolicyRule{r}, []rbacv1.PolicyRule{r}); !ok {
				t.Fatalf("%s does not cover itself: %v", CompactString(r), missing)
			}
		}

		ok, uncovered := Covers(owner, []rbacv1.PolicyRule{req})
		if ok != (len(uncovered) == 0) {
			t.Fatalf("Covers = %v with %d uncovered", ok, len(uncovered))
		}
		all := atoms(req)
		for _, u := range uncovered {
			if !slices.ContainsFunc(all, func(a rbacv1.PolicyRule) bool { return CompactString(a) == CompactString(u) }) {
				t.Errorf("uncovered %s is not an atom of %s", CompactString(u), CompactString(req))
			}
			if c, _ := Covers(owner, []rbacv1.PolicyRule{u}); c {
				t.Errorf("uncovered %s is covered on its own", CompactString(u))
			}
		}
		if !ok {
			return
		}
		// Covered: every request the requested rule allows, some owner
		// rule allows. Sample requests from its atoms, with wildcards
		// both kept and replaced by the fuzzed verb and name.
		for _, atom := range all {
			for _, a := range requestsOf(atom, verb, name) {
				if RuleAllows(a, req) && !slices.ContainsFunc(owner, func(o rbacv1.PolicyRule) bool { return RuleAllows(a, o) }) {
					t.Errorf("owner covers %s but refuses %+v, which it allows", CompactString(req), a)
				}
			}
		}
	})
}

// requestsOf returns requests an atom allows, or would if its
// wildcards were values.
func requestsOf(atom rbacv1.PolicyRule, verb, name string) []authorizer.Attributes {
	var out []authorizer.Attributes
	verbs := []string{atom.Verbs[0], verb}
	if len(atom.NonResourceURLs) == 1 {
		u := atom.NonResourceURLs[0]
		for _, v := range verbs {
			out = append(out,
				authorizer.Attributes{Verb: v, Path: u},
				authorizer.Attributes{Verb: v, Path: strings.TrimRight(u, "*") + name})
		}
		return out
	}
	resource, sub, _ := strings.Cut(atom.Resources[0], "/")
	if strings.Contains(resource, "/") {
		return nil
	}
	names := []string{name}
	if len(atom.ResourceNames) == 1 {
		names = append(names, atom.ResourceNames[0])
	}
	for _, v := range verbs {
		for _, n := range names {
			for _, g := range []string{atom.APIGroups[0], "apps"} {
				out = append(out, authorizer.Attributes{ResourceRequest: true, Verb: v, APIGroup: g, Resource: resource, Subresource: sub, Name: n})
				if resource == "*" {
					out = append(out, authorizer.Attributes{ResourceRequest: true, Verb: v, APIGroup: g, Resource: "pods", Subresource: sub, Name: n})
				}
			}
		}
	}
	return out
}
