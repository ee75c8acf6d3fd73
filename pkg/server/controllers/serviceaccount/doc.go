// Package serviceaccount keeps a ServiceAccount named "default" in every
// active namespace, as kube-controller-manager's serviceaccount
// controller does, so that pods, which run as "default" unless they
// name another account, always have one.
//
//	Namespaces (informer, creations and active updates) -> this controller
//	ServiceAccounts (informer, deletions)               ->
//	      -> POST the missing accounts
//
// A namespace is looked at when it appears and whenever it changes while
// Active, and again when one of the accounts is deleted from it, so a
// deleted "default" comes back. A namespace not Active (Terminating) is
// left alone: the namespace controller is emptying it, and the server
// refuses creates in it anyway. The account is created bare (a name,
// nothing else), as kube creates it. Which accounts are missing is a
// pure function (Missing).
package serviceaccount
