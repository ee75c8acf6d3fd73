// Package replicaset keeps each ReplicaSet's pods at its replica count,
// as kube-controller-manager's ReplicaSet controller does.
//
//	ReplicaSets, Pods (informers) -> this controller -> Pods (create, delete,
//	                                                   adopt, release)
//	                                                 -> ReplicaSet status
//
// A ReplicaSet owns the active pods its selector matches and whose
// controller reference names it: it adopts matching orphans and releases
// pods that stop matching. It creates the missing pods from its template
// in slow-start batches (1, 2, 4, ... while every create succeeds), at
// most 500 per pass, and deletes the extra ones in kube's order (pending
// before running, not ready before ready, doubled-up nodes first, newest
// first). Expectations keep it from acting twice on a cache that has not
// yet seen its own writes (internal/expectations). The decisions are pure
// functions of the ReplicaSet, its namespace's pods and the time
// (internal/ownership's Claim, Plan, Status, DeletionOrder); the
// reconciler only reads and writes.
package replicaset
