// Package placement decides where a pod runs: the scheduler's pure core,
// with no I/O. Given a pending pod and a Snapshot of the nodes with the
// pods already bound (or assumed) on them, Schedule runs the filters
// kube-scheduler's default profile runs, in its order (NodeUnschedulable,
// NodeName, TaintToleration, NodeAffinity, NodePorts, NodeResourcesFit,
// PodTopologySpread, InterPodAffinity), scores the nodes that pass and
// picks one. When none passes it returns a *FitError whose message is
// kube-scheduler's, word for word, including the part its default
// preemption adds.
//
// In the data path it sits inside the scheduler controller:
//
//	pod and node informers -> controller's view (NodeInfos) -> Schedule
//	    -> node name -> POST pods/binding
//	    -> *FitError -> PodScheduled=False condition, FailedScheduling event
//
// Ties between equally scored nodes go to the node whose name sorts
// first, so a decision depends only on its input.
package placement
