// Package disruption keeps each PodDisruptionBudget's status, as
// kube-controller-manager's disruption controller does: how many pods
// the budget expects, how many are healthy, how many must be, and so
// how many disruptions it allows now.
//
//	PodDisruptionBudgets, Pods (informers) -> this controller -> PDB status
//	                                   pods/eviction (server) -> PDB status
//
// The eviction subresource spends the allowance (decrementing
// disruptionsAllowed and recording the pod in disruptedPods); this
// controller recomputes it from the pods, and forgets a recorded pod
// that was not deleted within two minutes; such a pod's DisruptionTarget
// condition is set False after two minutes too (StaleDisruption). The computation is a pure
// function of the budget, its pods, their controllers' scales and the
// time (Compute); the reconciler only reads and writes.
package disruption
