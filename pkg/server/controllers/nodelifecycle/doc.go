// Package nodelifecycle watches Nodes' health, as
// kube-controller-manager's node lifecycle controller does: a node
// whose kubelet stopped reporting (no Lease renewal and no status
// heartbeat for the grace period, 50 s by default) has its conditions
// set to Unknown; and every node carries the taints its conditions call
// for, NoSchedule ones for the scheduler (not-ready, unreachable,
// pressure, unschedulable) and NoExecute ones (not-ready, unreachable)
// after which the taint eviction controller evicts pods that do not
// tolerate them.
//
//	Nodes, node Leases (informers) -> this controller -> node status, taints
//
// The decision is a pure function of a node, its lease and the time
// (Health), so it is tested on its own with any clock.
package nodelifecycle
