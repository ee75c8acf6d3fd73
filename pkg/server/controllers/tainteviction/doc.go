// Package tainteviction evicts Pods from Nodes with NoExecute taints
// they do not tolerate, as kube-controller-manager's taint eviction
// controller does: at once when a taint is not tolerated at all, else
// when the shortest tolerationSeconds of the tolerations in use has run
// from the taint's timeAdded; a toleration without seconds keeps the
// pod. The pod gets a DisruptionTarget condition, then is deleted with
// its grace period, so its owner makes another elsewhere.
//
//	Pods, Nodes (informers) -> this controller -> pod status, DELETE
//
// Due is the decision, a pure function of a pod, its node's taints and
// the time.
package tainteviction
