// Package scheduler binds pending pods to nodes: the controller that, in
// Kubernetes, is kube-scheduler with its default profile.
//
// In the data path it sits between pod creation and the node agent:
//
//	POST pod (no nodeName) -> pod informer -> view + queue -> this controller
//	    -> placement.Schedule on the view's nodes
//	    -> POST pods/{name}/binding -> the server sets spec.nodeName
//	       -> the node's agent runs the pod
//	    or -> PodScheduled=False (Unschedulable, kube's message) + Event
//
// It watches pods and nodes through the manager's shared informers and
// keeps its own view of what each node has given out (the view). A pod
// it binds counts on its node at once, before the watch confirms the
// binding (kube's "assumed" pods), so the next decision does not hand out
// the same room twice. Pods are taken from the controller's queue and
// decided one at a time; their bindings travel in parallel (kube's
// binding cycles), and an unschedulable pod waits for a change to nodes
// or pods and then for its back-off (1 s doubling to 10 s, as
// kube-scheduler), and is retried every 5 minutes regardless.
//
// The decision itself is the pure package placement.
package scheduler
