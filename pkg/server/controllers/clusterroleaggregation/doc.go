// Package clusterroleaggregation fills in aggregated ClusterRoles, as
// kube-controller-manager's clusterrole-aggregation controller does.
//
// A ClusterRole with an aggregationRule holds no rules of its own: its
// rules are the union of the rules of every other ClusterRole that one
// of its clusterRoleSelectors matches. The default admin, edit and view
// roles are built this way, so a role labelled, say,
// rbac.authorization.k8s.io/aggregate-to-view: "true" extends view, and
// through view edit and admin.
//
// The union is kube's, so that rules come out in the same order: the
// selectors in turn, for each the matching roles by name, each rule
// appended unless a semantically equal one is already there. Any change
// to any ClusterRole re-evaluates every aggregated one, since a change
// can add or remove a match anywhere and aggregates may chain. The
// rules are written only when they differ, by a forced server-side
// apply of the rules alone under the field manager
// "clusterrole-aggregation-controller".
package clusterroleaggregation
