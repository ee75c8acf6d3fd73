package rbac

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/setpoint-dev/setpoint/pkg/server/authorizer"
)

// ConfirmNoEscalation checks that u, by the rules r resolves for it in
// namespace (with the cluster-wide ones; "" for those alone), already
// holds every one of rules, so that granting them (in a Role,
// ClusterRole or the role a binding names) gives no one more than u
// has. If not it returns an *EscalationError, worded as kube's, for a
// 403 Forbidden. Rules r could not resolve do not stop the check; they
// are named in the error; a policy that could not be loaded at all
// (*LoadError) is returned as it is.
//
// Whether u may escalate regardless (system:masters, or the escalate or
// bind verb on the role) is the caller's to check first, as kube's RBAC
// storage does.
func ConfirmNoEscalation(ctx context.Context, r authorizer.RuleResolver, u authenticationv1.UserInfo, namespace string, rules []rbacv1.PolicyRule) error {
	return ConfirmNoEscalationOn(ctx, r, u, namespace, "", rules)
}

// ConfirmNoEscalationOn is ConfirmNoEscalation for a write of resource
// ("roles", "rolebindings", "clusterroles" or "clusterrolebindings"):
// kube's registry words a role missing during that check after the
// resource being written (`rolebindings.rbac.authorization.k8s.io "x"
// not found`), and so does this when r reports *RoleNotFoundError.
func ConfirmNoEscalationOn(ctx context.Context, r authorizer.RuleResolver, u authenticationv1.UserInfo, namespace, resource string, rules []rbacv1.PolicyRule) error {
	owned, resolveErr := r.RulesFor(ctx, u, namespace)
	if le := (*LoadError)(nil); errors.As(resolveErr, &le) {
		// No policy at all: nothing can be confirmed.
		return resolveErr
	}
	ok, missing := Covers(owned, rules)
	if ok {
		return nil
	}
	var descs []string
	for _, m := range compactRules(missing) {
		if d := CompactString(m); !slices.Contains(descs, d) {
			descs = append(descs, d)
		}
	}
	slices.Sort(descs)
	if resource != "" {
		resolveErr = reword(resolveErr, resource)
	}
	return &EscalationError{User: u, Missing: descs, Resolution: resolveErr}
}

// reword names resource in the not-found errors of err, which is
// rebuilt rather than changed: the resolver may share it.
func reword(err error, resource string) error {
	switch e := err.(type) {
	case *ResolutionError:
		errs := make([]error, len(e.Errs))
		for i, inner := range e.Errs {
			errs[i] = reword(inner, resource)
		}
		return &ResolutionError{Errs: errs}
	case *RoleNotFoundError:
		c := *e
		c.resource = resource
		return &c
	}
	return err
}

// compactRules merges the atoms (from Covers) that differ only in verb
// into one rule listing the verbs in the order met, as kube does before
// listing missing rules. Other rules are kept as they are.
func compactRules(rules []rbacv1.PolicyRule) []rbacv1.PolicyRule {
	type simple struct {
		group, resource string
		named           bool
		name            string
	}
	var out []rbacv1.PolicyRule
	merged := map[simple]int{}
	for _, r := range rules {
		if len(r.APIGroups) != 1 || len(r.Resources) != 1 || len(r.ResourceNames) > 1 || r.NonResourceURLs != nil {
			out = append(out, r)
			continue
		}
		k := simple{group: r.APIGroups[0], resource: r.Resources[0]}
		if len(r.ResourceNames) == 1 {
			k.named, k.name = true, r.ResourceNames[0]
		}
		if i, ok := merged[k]; ok {
			out[i].Verbs = append(out[i].Verbs, r.Verbs...)
			continue
		}
		merged[k] = len(out)
		out = append(out, *r.DeepCopy())
	}
	return out
}

// CompactString words a rule as kube's escalation errors do, naming
// only its non-empty fields:
// `{APIGroups:["apps"], Resources:["deployments"], Verbs:["get" "list"]}`.
func CompactString(r rbacv1.PolicyRule) string {
	var parts []string
	for _, f := range []struct {
		name   string
		values []string
	}{
		{"APIGroups", r.APIGroups},
		{"Resources", r.Resources},
		{"NonResourceURLs", r.NonResourceURLs},
		{"ResourceNames", r.ResourceNames},
		{"Verbs", r.Verbs},
	} {
		if len(f.values) > 0 {
			parts = append(parts, fmt.Sprintf("%s:%q", f.name, f.values))
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
