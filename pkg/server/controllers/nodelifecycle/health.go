package nodelifecycle

import (
	"slices"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DefaultGracePeriod is kube-controller-manager's
// --node-monitor-grace-period.
const DefaultGracePeriod = 50 * time.Second

// watched are the conditions a silent kubelet no longer vouches for;
// NetworkUnavailable belongs to the network, not the kubelet.
var watched = []corev1.NodeConditionType{corev1.NodeReady, corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure}

// Decision is what a node's health calls for.
type Decision struct {
	// Conditions, when not nil, replace the node's status conditions
	// (a silent kubelet's turned Unknown).
	Conditions []corev1.NodeCondition
	// Taints is the node's spec.taints as they should be.
	Taints []corev1.Taint
	// Recheck is when the node needs another look if nothing changes:
	// when its heartbeat runs out. Zero when it already has.
	Recheck time.Duration
}

// Health decides about node given its lease (nil if none) at now.
func Health(node *corev1.Node, lease *coordinationv1.Lease, now time.Time, grace time.Duration) Decision {
	var d Decision
	conds := node.Status.Conditions
	last := lastHeartbeat(node, lease)
	if deadline := last.Add(grace); now.After(deadline) {
		conds = unknown(node, now)
		if !slices.EqualFunc(conds, node.Status.Conditions, sameCondition) {
			d.Conditions = conds
		}
	} else {
		d.Recheck = deadline.Sub(now) + time.Second
	}
	d.Taints = taints(node, conds, now)
	return d
}

// lastHeartbeat is when the kubelet last vouched for the node: its
// lease's renewal or its Ready condition's heartbeat, whichever is
// later; a node that never reported counts from its creation.
func lastHeartbeat(node *corev1.Node, lease *coordinationv1.Lease) time.Time {
	last := node.CreationTimestamp.Time
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady && c.LastHeartbeatTime.After(last) {
			last = c.LastHeartbeatTime.Time
		}
	}
	if lease != nil && lease.Spec.RenewTime != nil && lease.Spec.RenewTime.After(last) {
		last = lease.Spec.RenewTime.Time
	}
	return last
}

// unknown is node's conditions after its kubelet went silent, worded as
// kube's controller words them.
func unknown(node *corev1.Node, now time.Time) []corev1.NodeCondition {
	out := slices.Clone(node.Status.Conditions)
	for _, t := range watched {
		i := slices.IndexFunc(out, func(c corev1.NodeCondition) bool { return c.Type == t })
		switch {
		case i < 0:
			out = append(out, corev1.NodeCondition{
				Type: t, Status: corev1.ConditionUnknown, Reason: "NodeStatusNeverUpdated",
				Message: "Kubelet never posted node status.", LastHeartbeatTime: node.CreationTimestamp,
				LastTransitionTime: metav1.NewTime(now),
			})
		case out[i].Status != corev1.ConditionUnknown:
			out[i].Status = corev1.ConditionUnknown
			out[i].Reason = "NodeStatusUnknown"
			out[i].Message = "Kubelet stopped posting node status."
			out[i].LastTransitionTime = metav1.NewTime(now)
		}
	}
	return out
}

func sameCondition(a, b corev1.NodeCondition) bool {
	return a.Type == b.Type && a.Status == b.Status && a.Reason == b.Reason && a.Message == b.Message &&
		a.LastTransitionTime.Equal(&b.LastTransitionTime)
}

// conditionTaints are the taints kube puts on a node for a condition's
// status.
var conditionTaints = map[corev1.NodeConditionType]map[corev1.ConditionStatus]string{
	corev1.NodeReady:              {corev1.ConditionFalse: corev1.TaintNodeNotReady, corev1.ConditionUnknown: corev1.TaintNodeUnreachable},
	corev1.NodeMemoryPressure:     {corev1.ConditionTrue: corev1.TaintNodeMemoryPressure},
	corev1.NodeDiskPressure:       {corev1.ConditionTrue: corev1.TaintNodeDiskPressure},
	corev1.NodeNetworkUnavailable: {corev1.ConditionTrue: corev1.TaintNodeNetworkUnavailable},
	corev1.NodePIDPressure:        {corev1.ConditionTrue: corev1.TaintNodePIDPressure},
}

// managed reports whether the controller owns taint t.
func managed(t corev1.Taint) bool {
	switch t.Key {
	case corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable:
		return t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute
	case corev1.TaintNodeMemoryPressure, corev1.TaintNodeDiskPressure, corev1.TaintNodeNetworkUnavailable,
		corev1.TaintNodePIDPressure, corev1.TaintNodeUnschedulable:
		return t.Effect == corev1.TaintEffectNoSchedule
	}
	return false
}

// taints is node's taint list with the managed ones as conds call for:
// the user's taints kept in place, a managed taint that stays keeping
// its timeAdded, new NoExecute ones stamped now.
func taints(node *corev1.Node, conds []corev1.NodeCondition, now time.Time) []corev1.Taint {
	var want []corev1.Taint
	for _, c := range conds {
		if key, ok := conditionTaints[c.Type][c.Status]; ok {
			want = append(want, corev1.Taint{Key: key, Effect: corev1.TaintEffectNoSchedule})
			if c.Type == corev1.NodeReady {
				want = append(want, corev1.Taint{Key: key, Effect: corev1.TaintEffectNoExecute})
			}
		}
	}
	if node.Spec.Unschedulable {
		want = append(want, corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule})
	}
	var out []corev1.Taint
	for _, t := range node.Spec.Taints {
		if !managed(t) || slices.ContainsFunc(want, func(w corev1.Taint) bool { return w.Key == t.Key && w.Effect == t.Effect }) {
			out = append(out, t)
		}
	}
	for _, w := range want {
		if slices.ContainsFunc(out, func(t corev1.Taint) bool { return t.Key == w.Key && t.Effect == w.Effect }) {
			continue
		}
		if w.Effect == corev1.TaintEffectNoExecute {
			added := metav1.NewTime(now)
			w.TimeAdded = &added
		}
		out = append(out, w)
	}
	return out
}
