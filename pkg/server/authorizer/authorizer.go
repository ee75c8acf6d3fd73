// Package authorizer names what a request asks to do (Attributes) and the
// question every authorization check asks (Authorizer), so the
// authorization filter, the access review kinds and the RBAC kinds'
// escalation checks ask the same question of whichever authorizer the
// server runs (pkg/server/rbac). It holds no policy of its own.
package authorizer

import (
	"context"
	"fmt"

	authenticationv1 "k8s.io/api/authentication/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

// Attributes are what one request asks to do, as kube-apiserver's
// authorizer.Attributes: a verb on a resource, or on a non-resource path.
type Attributes struct {
	User authenticationv1.UserInfo
	// Verb is the Kubernetes verb (get, list, watch, create, update,
	// patch, delete, deletecollection, or impersonate, bind, escalate,
	// use, approve, sign) for resource requests, and the lower-case HTTP
	// method's verb (get, post, put, patch, delete, head) for paths.
	Verb string
	// ResourceRequest says whether the request is on a resource (the
	// fields below) or on Path.
	ResourceRequest bool
	Namespace       string
	APIGroup        string
	APIVersion      string
	Resource        string
	Subresource     string
	Name            string
	// Path is the request's URL path, for non-resource requests.
	Path string
}

// Decision is an authorizer's answer.
type Decision int

const (
	// NoOpinion leaves the decision to the next authorizer; when none
	// allows, the request is refused.
	NoOpinion Decision = iota
	// Allow lets the request through.
	Allow
	// Deny refuses the request whatever later authorizers would say.
	Deny
)

func (d Decision) String() string {
	switch d {
	case Allow:
		return "Allow"
	case Deny:
		return "Deny"
	}
	return "NoOpinion"
}

// Authorizer decides whether a request's user may do what it asks. The
// reason explains the decision (it ends up in a 403's message and in
// access reviews); err reports a policy that could not be evaluated
// completely, which does not by itself deny.
type Authorizer interface {
	Authorize(ctx context.Context, a Attributes) (d Decision, reason string, err error)
}

// RuleResolver lists the rules a user holds in a namespace ("" for the
// cluster-wide ones only). A rule that could not be resolved (a binding
// to a missing role) is reported in err; the rules found are still
// returned.
type RuleResolver interface {
	RulesFor(ctx context.Context, u authenticationv1.UserInfo, namespace string) (rules []rbacv1.PolicyRule, err error)
}

// ForbiddenMessage words a refusal of a as kube-apiserver does, without
// the "<resource> is forbidden: " prefix its Status adds.
func ForbiddenMessage(a Attributes) string {
	if !a.ResourceRequest {
		return fmt.Sprintf("User %q cannot %s path %q", a.User.Username, a.Verb, a.Path)
	}
	resource := a.Resource
	if a.Subresource != "" {
		resource += "/" + a.Subresource
	}
	if a.Namespace != "" {
		return fmt.Sprintf("User %q cannot %s resource %q in API group %q in the namespace %q", a.User.Username, a.Verb, resource, a.APIGroup, a.Namespace)
	}
	return fmt.Sprintf("User %q cannot %s resource %q in API group %q at the cluster scope", a.User.Username, a.Verb, resource, a.APIGroup)
}

// PrivilegedGroup is the group whose members may do everything, as
// kube-apiserver's system:masters: no policy is consulted for them.
const PrivilegedGroup = "system:masters"

// IsPrivileged reports whether u is in PrivilegedGroup.
func IsPrivileged(u authenticationv1.UserInfo) bool {
	for _, g := range u.Groups {
		if g == PrivilegedGroup {
			return true
		}
	}
	return false
}
