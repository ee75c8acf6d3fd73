package nodeagent

import (
	"net/netip"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

const (
	// LabelSimulated, "true", marks a node the agent runs: the nodes it
	// registers carry it, and a node a user creates with it is adopted.
	// kwok's counterpart is the annotation kwok.x-k8s.io/node: fake.
	LabelSimulated = "setpoint.dev/simulated"
	// AnnotationHeartbeat, set to HeartbeatStopped on a simulated node,
	// stands for a dead kubelet: the node's Lease and status are no
	// longer renewed, and its pods no longer change.
	AnnotationHeartbeat = "setpoint.dev/heartbeat"
	HeartbeatStopped    = "stopped"

	// NodeLeaseNamespace holds the nodes' Leases.
	NodeLeaseNamespace = "kube-node-lease"
	// kubeletPort is the daemon endpoint the nodes advertise.
	kubeletPort = 10250
	// leaseDurationFactor makes a Lease last four renewals, as the
	// kubelet's 10 s renewals and 40 s duration do.
	leaseDurationFactor = 4
)

// IsSimulated reports whether the agent runs node n.
func IsSimulated(n *corev1.Node) bool { return n.Labels[LabelSimulated] == "true" }

// heartbeatStopped reports whether n's simulated kubelet is down.
func heartbeatStopped(n *corev1.Node) bool {
	return n.Annotations[AnnotationHeartbeat] == HeartbeatStopped
}

// podCIDR is the pod CIDR of the node in slot i: the i-th /24 of the
// cluster CIDR.
func (c config) podCIDR(slot int) netip.Prefix {
	a := c.clusterCIDR.Addr().As4()
	base := uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8
	base += uint32(slot) << 8
	return netip.PrefixFrom(netip.AddrFrom4([4]byte{byte(base >> 24), byte(base >> 16), byte(base >> 8), 0}), 24)
}

// slotOf is the slot whose pod CIDR is cidr, if it is one.
func (c config) slotOf(cidr string) (int, bool) {
	p, err := netip.ParsePrefix(cidr)
	if err != nil || p.Bits() != 24 || !c.clusterCIDR.Contains(p.Addr()) {
		return 0, false
	}
	a, b := p.Addr().As4(), c.clusterCIDR.Addr().As4()
	slot := (int(a[0])<<16 | int(a[1])<<8 | int(a[2])) - (int(b[0])<<16 | int(b[1])<<8 | int(b[2]))
	return slot, slot >= 0 && slot < c.slots()
}

// nodeIP is the InternalIP of the node in slot i.
func (c config) nodeIP(slot int) netip.Addr {
	a := c.nodeCIDR.Addr().As4()
	v := uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8 | uint32(a[3])
	v += uint32(slot) + 2
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// newNode is the i-th registered node as the kubelet registers itself,
// with the labels and annotations kwok's default node carries.
func (c config) newNode(i int, now time.Time) *corev1.Node {
	name := c.nodeName(i)
	cidr := c.podCIDR(i).String()
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name: name,
			Labels: map[string]string{
				"beta.kubernetes.io/arch":       c.Arch,
				"beta.kubernetes.io/os":         "linux",
				"kubernetes.io/arch":            c.Arch,
				"kubernetes.io/hostname":        name,
				"kubernetes.io/os":              "linux",
				"kubernetes.io/role":            "agent",
				"node-role.kubernetes.io/agent": "",
				LabelSimulated:                  "true",
			},
			Annotations: map[string]string{"node.alpha.kubernetes.io/ttl": "0"},
		},
		Spec: corev1.NodeSpec{PodCIDR: cidr, PodCIDRs: []string{cidr}},
	}
	n.Status.Capacity, n.Status.Allocatable = c.capacity()
	c.reportStatus(n, i, now)
	return n
}

// reportStatus is the kubelet's status update: it fills in what a
// simulated node's status lacks (addresses, capacity, node info, daemon
// endpoints) and posts the conditions with a fresh heartbeat. It reports
// whether anything but the heartbeat changed.
func (c config) reportStatus(n *corev1.Node, slot int, now time.Time) (changed bool) {
	st := &n.Status
	if len(st.Addresses) == 0 {
		st.Addresses = []corev1.NodeAddress{
			{Type: corev1.NodeInternalIP, Address: c.nodeIP(slot).String()},
			{Type: corev1.NodeHostName, Address: n.Name},
		}
		changed = true
	}
	if len(st.Capacity) == 0 {
		st.Capacity, st.Allocatable = c.capacity()
		changed = true
	}
	if len(st.Allocatable) == 0 {
		st.Allocatable = st.Capacity.DeepCopy()
		changed = true
	}
	if st.NodeInfo.KubeletVersion == "" {
		st.NodeInfo = corev1.NodeSystemInfo{
			MachineID: digestOf("machine", n.Name)[:32], SystemUUID: uuidOf(n.Name), BootID: uuidOf("boot", n.Name),
			KernelVersion: "6.8.0-setpoint", OSImage: "Setpoint simulated node", OperatingSystem: "linux",
			Architecture:            n.Labels["kubernetes.io/arch"],
			ContainerRuntimeVersion: "containerd://2.0.0-setpoint",
			KubeletVersion:          c.KubeletVersion,
		}
		if st.NodeInfo.Architecture == "" {
			st.NodeInfo.Architecture = c.Arch
		}
		changed = true
	}
	if st.DaemonEndpoints.KubeletEndpoint.Port == 0 {
		st.DaemonEndpoints.KubeletEndpoint.Port = kubeletPort
		changed = true
	}
	want := []corev1.NodeCondition{
		{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientMemory", Message: "kubelet has sufficient memory available"},
		{Type: corev1.NodeDiskPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasNoDiskPressure", Message: "kubelet has no disk pressure"},
		{Type: corev1.NodePIDPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientPID", Message: "kubelet has sufficient PID available"},
		{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status"},
	}
	out := make([]corev1.NodeCondition, 0, len(st.Conditions)+len(want))
	for _, w := range want {
		w.LastHeartbeatTime = metav1.NewTime(now)
		w.LastTransitionTime = w.LastHeartbeatTime
		if old := nodeCondition(st.Conditions, w.Type); old != nil && old.Status == w.Status {
			w.LastTransitionTime = old.LastTransitionTime
			changed = changed || old.Reason != w.Reason || old.Message != w.Message
		} else {
			changed = true
		}
		out = append(out, w)
	}
	for _, cond := range st.Conditions {
		if nodeCondition(want, cond.Type) == nil {
			out = append(out, cond)
		}
	}
	st.Conditions = out
	return changed
}

func nodeCondition(list []corev1.NodeCondition, t corev1.NodeConditionType) *corev1.NodeCondition {
	for i := range list {
		if list[i].Type == t {
			return &list[i]
		}
	}
	return nil
}

// lastHeartbeat is when the node's Ready condition was last posted.
func lastHeartbeat(n *corev1.Node) time.Time {
	if c := nodeCondition(n.Status.Conditions, corev1.NodeReady); c != nil {
		return c.LastHeartbeatTime.Time
	}
	return time.Time{}
}

// uuidOf is a UUID-shaped name derived from parts.
func uuidOf(parts ...string) string {
	h := digestOf(parts...)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// renewLease is the kubelet's node lease at now: held by the node, owned
// by it so that deleting the node deletes the lease.
func (c config) renewLease(l *coordinationv1.Lease, n *corev1.Node, now time.Time) {
	l.Name, l.Namespace = n.Name, NodeLeaseNamespace
	l.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: n.Name, UID: n.UID}}
	l.Spec.HolderIdentity = ptr.To(n.Name)
	l.Spec.LeaseDurationSeconds = ptr.To(max(1, int32(c.LeaseInterval*leaseDurationFactor/time.Second)))
	l.Spec.RenewTime = &metav1.MicroTime{Time: now}
}
