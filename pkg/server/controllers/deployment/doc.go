// Package deployment rolls Deployments out over ReplicaSets, as
// kube-controller-manager's Deployment controller does.
//
//	Deployments, ReplicaSets, Pods (informers) -> this controller
//	    -> ReplicaSets (create, scale, adopt, release, prune)
//	    -> Deployment status, revision annotation, rollback
//	ReplicaSets -> ReplicaSet controller -> Pods
//
// A Deployment owns the ReplicaSets its selector matches and whose
// controller reference names it. The one whose template equals the
// Deployment's (ignoring the pod-template-hash label) is the new one;
// it is created on demand, named after the Deployment and the hash of
// the template. A RollingUpdate grows the new ReplicaSet while the total
// stays within replicas+maxSurge and shrinks the old ones (the unhealthy
// first) while the available pods stay at least replicas-maxUnavailable;
// Recreate scales the old ones to zero, waits for their pods to go, then
// scales the new one up. A change of replicas in the middle of a rollout
// is spread over the ReplicaSets in proportion to their sizes. Paused
// Deployments only scale. Old ReplicaSets at zero beyond
// revisionHistoryLimit are deleted. The decisions are pure functions of
// the Deployment, its ReplicaSets and the time (Fenceposts,
// NewReplicas, ScaleDownOld, Proportional, Status, RolloutStatus, ...);
// the reconciler only reads and writes.
package deployment
