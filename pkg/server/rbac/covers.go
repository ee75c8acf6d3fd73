package rbac

import (
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
)

// Covers reports whether the owner rules allow everything the requested
// rules allow, as kube's escalation check decides it: each requested
// rule is split into atoms of one API group, resource, verb and
// resource name (or one non-resource URL and verb), and every atom must
// be covered by a single owner rule. uncovered lists the atoms no owner
// rule covers, in the order the requested rules produce them.
func Covers(owner, requested []rbacv1.PolicyRule) (ok bool, uncovered []rbacv1.PolicyRule) {
	for _, r := range requested {
		for _, atom := range atoms(r) {
			if !slices.ContainsFunc(owner, func(o rbacv1.PolicyRule) bool { return ruleCovers(o, atom) }) {
				uncovered = append(uncovered, atom)
			}
		}
	}
	return len(uncovered) == 0, uncovered
}

// atoms splits r into rules of at most one value per field. A resource
// part with no API group (or no resource, or no verb) yields no atoms,
// as it allows nothing.
func atoms(r rbacv1.PolicyRule) []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	for _, g := range r.APIGroups {
		for _, res := range r.Resources {
			for _, v := range r.Verbs {
				if len(r.ResourceNames) == 0 {
					out = append(out, rbacv1.PolicyRule{APIGroups: []string{g}, Resources: []string{res}, Verbs: []string{v}})
					continue
				}
				for _, n := range r.ResourceNames {
					out = append(out, rbacv1.PolicyRule{APIGroups: []string{g}, Resources: []string{res}, Verbs: []string{v}, ResourceNames: []string{n}})
				}
			}
		}
	}
	for _, u := range r.NonResourceURLs {
		for _, v := range r.Verbs {
			out = append(out, rbacv1.PolicyRule{NonResourceURLs: []string{u}, Verbs: []string{v}})
		}
	}
	return out
}

// ruleCovers reports whether owner covers atom (a rule of at most one
// value per field). An atom without resource names is covered only by
// an owner rule without resource names.
func ruleCovers(owner, atom rbacv1.PolicyRule) bool {
	names := len(owner.ResourceNames) == 0 ||
		(len(atom.ResourceNames) > 0 && containsAll(owner.ResourceNames, atom.ResourceNames))
	return names &&
		(slices.Contains(owner.Verbs, rbacv1.VerbAll) || containsAll(owner.Verbs, atom.Verbs)) &&
		(slices.Contains(owner.APIGroups, rbacv1.APIGroupAll) || containsAll(owner.APIGroups, atom.APIGroups)) &&
		resourcesCovered(owner.Resources, atom.Resources) &&
		urlsCovered(owner.NonResourceURLs, atom.NonResourceURLs)
}

func containsAll(set, want []string) bool {
	for _, w := range want {
		if !slices.Contains(set, w) {
			return false
		}
	}
	return true
}

// resourcesCovered: "*" covers all; otherwise each wanted resource must
// be listed, or be a "resource/subresource" whose "*/subresource" is.
func resourcesCovered(owner, want []string) bool {
	if slices.Contains(owner, rbacv1.ResourceAll) {
		return true
	}
	for _, w := range want {
		if slices.Contains(owner, w) {
			continue
		}
		_, sub, ok := strings.Cut(w, "/")
		if !ok || !slices.Contains(owner, "*/"+sub) {
			return false
		}
	}
	return true
}

func urlsCovered(owner, want []string) bool {
	for _, w := range want {
		if !slices.ContainsFunc(owner, func(o string) bool { return o == w || urlPrefixCovers(o, w) }) {
			return false
		}
	}
	return true
}
