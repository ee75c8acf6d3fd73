// Package podgc collects Pods nobody else will remove, as
// kube-controller-manager's pod garbage collector does. Every period
// (20 s) it looks at all pods and nodes in its informers and force
// deletes (grace period 0, after marking a pod that has not finished
// Failed):
//
//   - terminated pods (Succeeded or Failed) beyond the threshold
//     (--terminated-pod-gc-threshold, 12500), evicted ones first, then
//     the oldest;
//
//   - terminating pods on a node that is not Ready and carries the
//     node.kubernetes.io/out-of-service taint, whose kubelet will never
//     finish them;
//
//   - pods bound to a node that no longer exists: the node must have
//     been missing for the quarantine (40 s) and a fresh read from the
//     server must confirm it is gone; such a pod gets a DisruptionTarget
//     condition, reason DeletionByPodGC;
//
//   - terminating pods that were never scheduled.
//
//     Pods, Nodes (informers) -> Plan, Quarantine -> GET node -> pods/status, DELETE
//
// The decisions are pure (Plan, Orphans, Quarantine) and tested with any
// clock; the runnable around them only reads, confirms and writes.
package podgc
