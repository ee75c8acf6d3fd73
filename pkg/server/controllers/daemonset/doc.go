// Package daemonset runs one pod of each DaemonSet on every node that
// should run it, as kube-controller-manager's DaemonSet controller does.
//
//	DaemonSets, Nodes, Pods, ControllerRevisions (informers)
//	    -> this controller -> ControllerRevisions (create, relabel, prune)
//	                       -> Pods (create, delete, adopt, release)
//	                       -> DaemonSet status
//
// A node should run a DaemonSet's pod when it passes the template's
// nodeSelector and required node affinity and carries no taint the pod
// does not tolerate, counting the tolerations every daemon pod gets
// (DaemonTolerations); a pod keeps running on a node whose new NoSchedule
// taints it does not tolerate. Pods are not bound by name: each is
// created with a required node affinity for metadata.name In [node]
// (NodeAffinityFor) and the scheduler binds it there.
//
// A pass first records the template as a ControllerRevision named
// <ds>-<hash>, whose hash labels the pods (controller-revision-hash) with
// the template generation (pod-template-generation); then it claims the
// pods (controllerRef), and when expectations are met plans per node
// (Plan: create where missing, delete extras, misplaced, succeeded and,
// with back-off, failed pods), then, with nothing left to do there, the
// rolling update (Roll: maxUnavailable and maxSurge, kube's rounding up);
// prunes revisions beyond revisionHistoryLimit; writes the status
// (Status). The decisions are pure functions of the DaemonSet, its
// nodes, its pods and the time; the reconciler only reads and writes.
package daemonset
