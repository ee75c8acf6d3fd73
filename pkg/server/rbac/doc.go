// Package rbac is the server's role-based access control: it decides
// requests from the cluster's Roles, ClusterRoles and their bindings
// as kube-apiserver's RBAC authorizer does, lists the rules a user
// holds (for SelfSubjectRulesReview and escalation checks), and says
// whether a user may grant a set of rules without escalating.
//
// A Policy is an immutable index of the RBAC objects; the Authorizer
// the server runs loads one lazily, caches its decisions, and reloads
// when told the objects changed. The package knows no HTTP: callers
// hand it authorizer.Attributes and get decisions and typed errors.
package rbac
