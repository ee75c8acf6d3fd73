package bootstrap

import (
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
)

// Verb sets shared by many rules, written as space-separated lists.
const (
	read       = "get list watch"
	write      = "create update patch delete deletecollection"
	readWrite  = read + " " + write
	readUpdate = read + " update patch"
)

// API groups. core stands for the legacy group "" so that groups can be
// written as space-separated lists.
const (
	core            = "core"
	admission       = "admissionregistration.k8s.io"
	apps            = "apps"
	authn           = "authentication.k8s.io"
	authz           = "authorization.k8s.io"
	autoscaling     = "autoscaling"
	batch           = "batch"
	certificates    = "certificates.k8s.io"
	coordination    = "coordination.k8s.io"
	discovery       = "discovery.k8s.io"
	eventsGroup     = "events.k8s.io"
	extensions      = "extensions"
	networking      = "networking.k8s.io"
	node            = "node.k8s.io"
	policyGroup     = "policy"
	rbacGroup       = "rbac.authorization.k8s.io"
	storage         = "storage.k8s.io"
	resourceMetrics = "metrics.k8s.io"
	customMetrics   = "custom.metrics.k8s.io"
	externalMetrics = "external.metrics.k8s.io"
)

// list splits a space-separated list and sorts it: kube stores every
// list of a default rule sorted, and the golden comparison is exact.
func list(s string) []string {
	if s == "" {
		return nil
	}
	out := strings.Fields(s)
	for i, v := range out {
		if v == core {
			out[i] = ""
		}
	}
	slices.Sort(out)
	return out
}

// res is a rule on resources of the given groups.
func res(verbs, groups, resources string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: list(verbs), APIGroups: list(groups), Resources: list(resources)}
}

// named is a rule on the named objects only.
func named(verbs, groups, resources, names string) rbacv1.PolicyRule {
	r := res(verbs, groups, resources)
	r.ResourceNames = list(names)
	return r
}

// urls is a rule on non-resource paths.
func urls(verbs, paths string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: list(verbs), NonResourceURLs: list(paths)}
}

// events is the rule every component that records events holds.
func events() rbacv1.PolicyRule {
	return res("create update patch", core+" "+eventsGroup, "events")
}
