package placement

import (
	"fmt"

	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/toleration"

	corev1 "k8s.io/api/core/v1"
)

// unschedulableTaint is the taint a cordoned node stands for: pods that
// tolerate it may go to unschedulable nodes (DaemonSet pods do).
var unschedulableTaint = corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}

// cycle is one pod's scheduling attempt: what its filters computed once.
type cycle struct {
	pod      *corev1.Pod
	info     *PodInfo
	spread   *spreadState
	affinity *podAffinityState
}

func newCycle(pod *corev1.Pod, snap *Snapshot) *cycle {
	return &cycle{pod: pod, info: NewPodInfo(pod), spread: newSpreadState(pod, snap), affinity: newPodAffinityState(pod, snap)}
}

// filter runs the filters on one node in kube-scheduler's order and
// stops at the first that fails, as kube does.
func (c *cycle) filter(ni *NodeInfo) *Status {
	node, pod := ni.Node, c.pod
	if node.Spec.Unschedulable && !toleration.Any(pod.Spec.Tolerations, &unschedulableTaint) {
		return fail(UnschedulableAndUnresolvable, ReasonUnschedulable)
	}
	if pod.Spec.NodeName != "" && pod.Spec.NodeName != node.Name {
		return fail(UnschedulableAndUnresolvable, ReasonNodeName)
	}
	if t, ok := untoleratedTaint(node.Spec.Taints, pod.Spec.Tolerations); ok {
		return fail(UnschedulableAndUnresolvable, fmt.Sprintf(reasonUntoleratedTaint, t.Key, t.Value))
	}
	if !matchesNodeSelector(pod, node) {
		return fail(UnschedulableAndUnresolvable, ReasonNodeAffinity)
	}
	if portsConflict(c.info.Ports, ni.usedPorts) {
		return fail(Unschedulable, ReasonNodePorts)
	}
	if reasons := insufficient(c.info.Requests, ni); len(reasons) > 0 {
		return fail(Unschedulable, reasons...)
	}
	if st := c.spread.filter(node); st != nil {
		return st
	}
	return c.affinity.filter(node)
}

// insufficient lists what the node lacks for the request, in kube's
// order and words: pods count first, then cpu, memory, ephemeral
// storage and extended resources.
func insufficient(req Resources, ni *NodeInfo) []string {
	var out []string
	if int64(len(ni.Pods))+1 > ni.AllowedPods {
		out = append(out, ReasonTooManyPods)
	}
	a, u := &ni.Allocatable, &ni.Requested
	if req.MilliCPU > 0 && req.MilliCPU > a.MilliCPU-u.MilliCPU {
		out = append(out, "Insufficient cpu")
	}
	if req.Memory > 0 && req.Memory > a.Memory-u.Memory {
		out = append(out, "Insufficient memory")
	}
	if req.EphemeralStorage > 0 && req.EphemeralStorage > a.EphemeralStorage-u.EphemeralStorage {
		out = append(out, "Insufficient ephemeral-storage")
	}
	for _, n := range sortedNames(req.Scalar) {
		if v := req.Scalar[n]; v > 0 && v > a.Scalar[n]-u.Scalar[n] {
			out = append(out, "Insufficient "+string(n))
		}
	}
	return out
}
