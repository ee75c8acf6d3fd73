package placement

// Code says whether a failing filter could pass once other pods went
// away: preemption only looks at nodes whose code is Unschedulable.
type Code int

const (
	// Unschedulable: the node could fit the pod without some of its pods.
	Unschedulable Code = iota + 1
	// UnschedulableAndUnresolvable: no eviction would help.
	UnschedulableAndUnresolvable
)

// Status is why one node cannot take the pod: the reasons one filter
// gave, as kube-scheduler words them.
type Status struct {
	Code    Code
	Reasons []string
}

func fail(code Code, reasons ...string) *Status { return &Status{Code: code, Reasons: reasons} }

// The reasons filters give, as kube-scheduler's plugins give them.
const (
	ReasonUnschedulable       = "node(s) were unschedulable"
	ReasonNodeName            = "node(s) didn't match the requested node name"
	ReasonNodeAffinity        = "node(s) didn't match Pod's node affinity/selector"
	ReasonNodePorts           = "node(s) didn't have free ports for the requested pod ports"
	ReasonTooManyPods         = "Too many pods"
	ReasonPodAffinity         = "node(s) didn't match pod affinity rules"
	ReasonPodAntiAffinity     = "node(s) didn't match pod anti-affinity rules"
	ReasonExistingAntiAffinty = "node(s) didn't satisfy existing pods anti-affinity rules"
	// reasonNodeAffinityConflict: node affinity terms that each name
	// nodes by metadata.name, with no name in common.
	reasonNodeAffinityConflict = "pod affinity terms conflict"
	// reasonNotNamed is the reason of the nodes the pod's node affinity
	// did not name, which kube's filters never see.
	reasonNotNamed = "node(s) didn't satisfy plugin(s) [NodeAffinity]"
	// reasonUntoleratedTaint is formatted with the taint's key and value.
	reasonUntoleratedTaint = "node(s) had untolerated taint {%s: %s}"
)

// The reasons of the preemption dry run (kube's DefaultPreemption).
const (
	reasonNoVictims          = "No preemption victims found for incoming pod"
	reasonPreemptionNotHelps = "Preemption is not helpful for scheduling"
	msgPreemptNever          = "not eligible due to preemptionPolicy=Never."
)
