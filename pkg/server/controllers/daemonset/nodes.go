package daemonset

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/toleration"
	"github.com/setpoint-dev/setpoint/pkg/server/controllers/scheduler/placement"
)

// Fit is how a node stands with a DaemonSet.
type Fit struct {
	// Run: the node should run the DaemonSet's pod, and gets one if it
	// has none.
	Run bool
	// Keep: a pod already there may stay. A node the pod no longer fits
	// only because of NoSchedule taints keeps its pod; one with a
	// NoExecute taint the pod does not tolerate, or that fails the
	// selector or affinity, does not.
	Keep bool
}

// ShouldRun judges node for ds as kube's NodeShouldRunDaemonPod does,
// with the daemon tolerations added to the template's.
func ShouldRun(node *corev1.Node, ds *appsv1.DaemonSet) Fit {
	if n := ds.Spec.Template.Spec.NodeName; n != "" && n != node.Name {
		return Fit{}
	}
	pod := &corev1.Pod{ObjectMeta: *ds.Spec.Template.ObjectMeta.DeepCopy(), Spec: *ds.Spec.Template.Spec.DeepCopy()}
	pod.Namespace = ds.Namespace
	pod.Spec.NodeName = node.Name
	pod.Spec.Tolerations = DaemonTolerations(&pod.Spec)
	if !placement.FitsNodeSelector(pod, node) {
		return Fit{}
	}
	if untolerated(node.Spec.Taints, pod.Spec.Tolerations, corev1.TaintEffectNoSchedule, corev1.TaintEffectNoExecute) {
		return Fit{Keep: !untolerated(node.Spec.Taints, pod.Spec.Tolerations, corev1.TaintEffectNoExecute)}
	}
	return Fit{Run: true, Keep: true}
}

// untolerated reports whether one of taints with one of effects is
// tolerated by none of tols.
func untolerated(taints []corev1.Taint, tols []corev1.Toleration, effects ...corev1.TaintEffect) bool {
	for i := range taints {
		t := &taints[i]
		for _, e := range effects {
			if t.Effect == e && !toleration.Any(tols, t) {
				return true
			}
		}
	}
	return false
}

// daemonTolerations are what every daemon pod tolerates, so that node
// problems neither evict it (not-ready and unreachable, for ever) nor
// keep it off a node (pressure, cordoned).
var daemonTolerations = []corev1.Toleration{
	{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
	{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
	{Key: corev1.TaintNodeDiskPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	{Key: corev1.TaintNodeMemoryPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	{Key: corev1.TaintNodePIDPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
}

// hostNetworkToleration is for pods on the host's network, which need no
// pod network to be up.
var hostNetworkToleration = corev1.Toleration{Key: corev1.TaintNodeNetworkUnavailable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}

// DaemonTolerations are spec's tolerations with the daemon ones added
// as kube adds them: one of spec's with the same key, operator, value
// and effect is replaced in place, every such one (so a not-ready toleration with
// seconds becomes one without), the others appended in kube's order.
func DaemonTolerations(spec *corev1.PodSpec) []corev1.Toleration {
	out := append([]corev1.Toleration(nil), spec.Tolerations...)
	add := daemonTolerations
	if spec.HostNetwork {
		add = append(append([]corev1.Toleration(nil), add...), hostNetworkToleration)
	}
	for _, t := range add {
		replaced := false
		for i := range out {
			if out[i].Key == t.Key && out[i].Operator == t.Operator && out[i].Value == t.Value && out[i].Effect == t.Effect {
				out[i] = t
				replaced = true
			}
		}
		if !replaced {
			out = append(out, t)
		}
	}
	return out
}
