package registry

import (
	"context"
	"errors"
	"fmt"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/setpoint-dev/setpoint/pkg/server/authorizer"
	"github.com/setpoint-dev/setpoint/pkg/server/rbac"
	"github.com/setpoint-dev/setpoint/pkg/server/user"
)

// RoleGetter reads the role a RoleBinding or ClusterRoleBinding refers
// to, for the check that a binding grants nothing its author lacks. The
// server implements it over the objects it serves; the watch cache is
// current enough (kube reads its storage, so a role written a moment
// before may still be missing there too).
type RoleGetter interface {
	// RoleRules returns the rules of the Role namespace/name, or of the
	// ClusterRole name when namespace is empty. found is false when no
	// such role exists; err is a failure to read, never a missing role.
	RoleRules(ctx context.Context, namespace, name string) (rules []rbacv1.PolicyRule, found bool, err error)
}

// rbacGuard is what the RBAC kinds ask before a write, as kube's RBAC
// storage does: whether the caller may grant what the object grants.
// Nil runs no check.
type rbacGuard struct {
	authz authorizer.Authorizer
	rules authorizer.RuleResolver
	roles RoleGetter
}

func newRBACGuard(o BuiltinOptions) *rbacGuard {
	if o.Authorizer == nil {
		return nil
	}
	return &rbacGuard{authz: o.Authorizer, rules: o.Rules, roles: o.Roles}
}

// fullAuthority is every verb on everything: what writing an aggregation
// rule takes, since it may gather any rule.
var fullAuthority = []rbacv1.PolicyRule{
	{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
	{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}},
}

// errAggregation refuses an aggregation rule to a caller without full
// authority, in kube's words.
const errAggregation = "must have cluster-admin privileges to use the aggregationRule"

// Admit lets the caller write a role whose rules it holds itself, or
// any role when it is in system:masters or may escalate this role (by
// the name in the URL: none on a POST). A ClusterRole that aggregates
// (or did) takes full authority besides. An update that changes only
// what the garbage collector changes is not checked.
func (s roleStrategy) Admit(ctx context.Context, name string, obj, old map[string]any) error {
	g := s.guard
	if g == nil {
		return nil
	}
	u := user.Caller(ctx)
	resource, ns := "roles", namespaceOf(obj)
	if s.cluster {
		resource, ns = "clusterroles", ""
	}
	if authorizer.IsPrivileged(u) || g.allows(ctx, authorizer.Attributes{
		User: u, Verb: "escalate", ResourceRequest: true,
		APIGroup: rbacGroup, APIVersion: "*", Resource: resource, Name: name, Namespace: ns,
	}) {
		return nil
	}
	if old != nil && onlyCollectorChanges(obj, old) {
		return nil
	}
	var role rbacv1.ClusterRole
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, &role); err != nil {
		return err
	}
	if err := g.confirm(ctx, u, ns, resource, role.Rules); err != nil {
		return err
	}
	if s.cluster && (aggregates(obj) || (old != nil && aggregates(old))) {
		if err := rbac.ConfirmNoEscalation(ctx, g.rules, u, "", fullAuthority); err != nil {
			return &ForbiddenError{Reason: errAggregation}
		}
	}
	return nil
}

// Admit lets the caller write a binding when it is in system:masters,
// may bind the role it refers to, or holds every rule of that role
// itself. An update that changes only what the garbage collector
// changes is not checked.
func (s bindingStrategy) Admit(ctx context.Context, _ string, obj, old map[string]any) error {
	g := s.guard
	if g == nil {
		return nil
	}
	u := user.Caller(ctx)
	if authorizer.IsPrivileged(u) {
		return nil
	}
	if old != nil {
		// Compared with the stored object as kube compares them:
		// both defaulted.
		view := runtime.DeepCopyJSON(obj)
		defaultBinding(view)
		if onlyCollectorChanges(view, old) {
			return nil
		}
	}
	resource, ns := "rolebindings", namespaceOf(obj)
	if s.cluster {
		resource, ns = "clusterrolebindings", ""
	}
	ref := roleRefOf(obj)
	if g.mayBind(ctx, u, ref, ns) {
		return nil
	}
	rules, err := g.roleRules(ctx, ref, ns)
	if err != nil {
		return err
	}
	return g.confirm(ctx, u, ns, resource, rules)
}

// allows asks the authorizer. An error evaluating the policy does not
// refuse by itself: the decision stands, as in kube.
func (g *rbacGuard) allows(ctx context.Context, a authorizer.Attributes) bool {
	d, _, _ := g.authz.Authorize(ctx, a)
	return d == authorizer.Allow
}

// mayBind reports whether u may bind the role ref names in the binding's
// namespace ns ("" for a ClusterRoleBinding): the bind verb on it.
func (g *rbacGuard) mayBind(ctx context.Context, u authenticationv1.UserInfo, ref rbacv1.RoleRef, ns string) bool {
	var resource string
	switch ref.Kind {
	case "Role":
		resource = "roles"
	case "ClusterRole":
		resource = "clusterroles"
	default:
		return false
	}
	return g.allows(ctx, authorizer.Attributes{
		User: u, Verb: "bind", ResourceRequest: true,
		APIGroup: ref.APIGroup, APIVersion: "*", Resource: resource, Name: ref.Name, Namespace: ns,
	})
}

// roleRules reads the rules of the role ref names from a binding in ns.
// It fails as kube's lookup in its storage does: a Role looked up
// without a namespace or a bad name is a bad request, a missing role a
// 404 under the binding's resource, another kind a 500.
func (g *rbacGuard) roleRules(ctx context.Context, ref rbacv1.RoleRef, ns string) ([]rbacv1.PolicyRule, error) {
	var lookup string
	switch ref.Kind {
	case "Role":
		if ns == "" {
			return nil, &BadRequestError{Message: "Namespace parameter required."}
		}
		lookup = ns
	case "ClusterRole":
	default:
		return nil, &InternalRefusalError{Message: (&rbac.UnsupportedRoleRefError{Kind: ref.Kind}).Error()}
	}
	if ref.Name == "" {
		return nil, &BadRequestError{Message: "Name parameter required."}
	}
	if msgs := content.IsPathSegmentName(ref.Name); len(msgs) > 0 {
		return nil, &BadRequestError{Message: fmt.Sprintf("Name parameter invalid: %q: %s", ref.Name, strings.Join(msgs, ";"))}
	}
	rules, found, err := g.roles.RoleRules(ctx, lookup, ref.Name)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, &NotFoundError{Name: ref.Name}
	}
	return rules, nil
}

// confirm refuses, with kube's 403, rules u does not hold in ns; the
// write is of resource, which names roles missing from u's own bindings
// as kube words them.
func (g *rbacGuard) confirm(ctx context.Context, u authenticationv1.UserInfo, ns, resource string, rules []rbacv1.PolicyRule) error {
	err := rbac.ConfirmNoEscalationOn(ctx, g.rules, u, ns, resource, rules)
	if esc := (*rbac.EscalationError)(nil); errors.As(err, &esc) {
		return &ForbiddenError{Reason: esc.Error()}
	}
	return err
}

// aggregates reports whether a ClusterRole has an aggregation rule with
// at least one selector.
func aggregates(obj map[string]any) bool {
	ar, _ := obj["aggregationRule"].(map[string]any)
	sel, _ := ar["clusterRoleSelectors"].([]any)
	return len(sel) > 0
}

func namespaceOf(obj map[string]any) string {
	return str(nestedMap(obj, false, "metadata")["namespace"])
}

// collectorFields are the metadata the garbage collector writes (with
// managed fields and selfLink, which say nothing of the object).
var collectorFields = []string{"ownerReferences", "finalizers", "selfLink", "managedFields"}

// onlyCollectorChanges reports whether obj differs from old in the
// collector's fields alone, so that writing it grants nothing new. Like
// kube's comparison of typed objects, an absent field equals its zero
// value.
func onlyCollectorChanges(obj, old map[string]any) bool {
	next := runtime.DeepCopyJSON(obj)
	meta, oldMeta := nestedMap(next, true, "metadata"), nestedMap(old, false, "metadata")
	for _, k := range collectorFields {
		if v, ok := oldMeta[k]; ok {
			meta[k] = v
		} else {
			delete(meta, k)
		}
	}
	return sameOrZero(next, old)
}

// sameOrZero compares JSON values, taking absent, null and zero values
// (empty strings, lists and maps, false, 0) as equal.
func sameOrZero(a, b any) bool {
	if isZeroJSON(a) && isZeroJSON(b) {
		return true
	}
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range a {
			if !sameOrZero(v, b[k]) {
				return false
			}
		}
		for k, v := range b {
			if _, ok := a[k]; !ok && !isZeroJSON(v) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !sameOrZero(a[i], b[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}

func isZeroJSON(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return v == ""
	case bool:
		return !v
	case int64:
		return v == 0
	case float64:
		return v == 0
	case map[string]any:
		return len(v) == 0
	case []any:
		return len(v) == 0
	}
	return false
}
