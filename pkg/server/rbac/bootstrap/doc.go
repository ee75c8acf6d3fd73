// Package bootstrap is the default RBAC policy a Kubernetes v1.33
// apiserver writes when it starts, and the rules by which it brings
// existing objects up to date without taking anything away from them.
//
// Default lists every object the apiserver's RBAC post-start hook
// writes with the feature gates at their v1.33 defaults; the Reconcile*
// functions say, for one wanted object and what storage holds, what to
// write. The hook itself (reading, writing, retrying) lives with the
// server; this package knows no storage. Kube's hook, for reference:
// carries legacy objects over (Aggregations, Splits), then reconciles
// the ClusterRoles, ClusterRoleBindings, Roles and RoleBindings of
// Default in that order, creating a Role's namespace first if it can;
// it keeps going past failures and retries the whole pass every second,
// and the server fails to start if no pass succeeds within 30 seconds.
package bootstrap
