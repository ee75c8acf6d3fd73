// Package nodeagent simulates the kubelets of a cluster's nodes: the role
// kwok plays for kind-less clusters. Nothing runs; the agent reports what
// a kubelet would.
//
// In the data path it sits after the scheduler: a pod bound to a
// simulated node (spec.nodeName) reaches this controller through its pod
// informer, and the agent writes the pod's status through pods/status as
// the kubelet would, step by step, recording the kubelet's Events
// (source.component kubelet, source.host the node):
//
//	scheduler binds pod -> informer -> Advance(pod, now, behaviour)
//	    -> PUT pods/status, Events -> requeue after the step's wait
//
// The steps come from Advance, a pure function of the pod, the time and
// the pod's behaviour, so they are tested without a server: the pod gets
// its start time, host and pod addresses, its init containers run to
// completion in order, then its containers start, become started and
// ready after their probes' initial delays, and may exit, restart with
// the kubelet's crash back-off (10 s doubling to 5 min) or stop for good,
// as spec.restartPolicy says. A pod being deleted has its containers
// stopped and is then deleted for good (grace period 0), as the kubelet
// does once they stopped.
//
// A node is simulated when it carries the label setpoint.dev/simulated:
// "true"; the agent registers Options.Nodes of them (sim-node-0, ...)
// and keeps every simulated node's Lease in kube-node-lease and its
// Ready heartbeat fresh, unless the node is annotated
// setpoint.dev/heartbeat: stopped, which stands for a dead kubelet: its
// lease and status go stale and its pods stop changing.
//
// A pod programs its containers with annotations, read at every step:
//
//	setpoint.dev/exit-after: "30s"    each regular container exits 30 s after it starts
//	setpoint.dev/exit-code: "1"       ... with this code (default 0)
//	setpoint.dev/crash-loop: "true"   each regular container fails (code 1) as it starts
//	setpoint.dev/never-ready: "true"  containers run but never become ready
//	setpoint.dev/image-pull-error: "true" or a message
//	                                  pulls fail: ErrImagePull, then ImagePullBackOff
//	setpoint.dev/containers: "a,b"    the above apply to these containers only
//
// Init containers complete at once with exit code 0 (a pull error
// applies to them too). A malformed annotation is logged and ignored.
// Combined with restartPolicy these give Jobs that complete (exit 0,
// Never or OnFailure), Jobs that fail (non-zero, Never), and crash loops
// (Always). Removing image-pull-error lets the pull succeed.
package nodeagent
