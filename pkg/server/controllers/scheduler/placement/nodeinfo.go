package placement

import (
	corev1 "k8s.io/api/core/v1"
)

// PodInfo is a pod bound or assumed on a node, with what the filters
// and scores read of it computed once.
type PodInfo struct {
	Pod *corev1.Pod
	// Requests count against the node's allocatable; NonZero against it
	// for scoring.
	Requests, NonZero Resources
	// Ports are the host ports it holds.
	Ports []HostPort
	// Priority is spec.priority, 0 when unset.
	Priority int32
	// owner is the uid of the pod's controller, the group it spreads in.
	owner string
}

// NewPodInfo computes a pod's PodInfo.
func NewPodInfo(pod *corev1.Pod) *PodInfo {
	pi := &PodInfo{Pod: pod, Requests: PodRequests(pod, false), NonZero: PodRequests(pod, true), Ports: hostPorts(pod), owner: controllerOf(pod)}
	if pod.Spec.Priority != nil {
		pi.Priority = *pod.Spec.Priority
	}
	return pi
}

// hasRequiredAntiAffinity reports whether the pod keeps others away.
func (pi *PodInfo) hasRequiredAntiAffinity() bool {
	a := pi.Pod.Spec.Affinity
	return a != nil && a.PodAntiAffinity != nil && len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0
}

// NodeInfo is a node and the pods on it, with their sums kept current
// as pods come and go, so filtering a node costs nothing per pod.
type NodeInfo struct {
	Node        *corev1.Node
	Allocatable Resources
	// AllowedPods is the node's allocatable pod count.
	AllowedPods int64
	Pods        []*PodInfo
	// Requested and NonZeroRequested are the sums over Pods.
	Requested, NonZeroRequested Resources
	usedPorts                   map[HostPort]int
	// antiAffinityPods counts Pods with required anti-affinity terms.
	antiAffinityPods int
	// owners counts Pods per controller uid, for the spread score.
	owners map[string]int
	// affinityPods counts Pods with any pod (anti-)affinity term.
	affinityPods int
}

// NewNodeInfo returns the NodeInfo of a node without pods.
func NewNodeInfo(node *corev1.Node) *NodeInfo {
	ni := &NodeInfo{}
	ni.SetNode(node)
	return ni
}

// SetNode replaces the node, keeping its pods.
func (ni *NodeInfo) SetNode(node *corev1.Node) {
	ni.Node = node
	ni.Allocatable = ResourcesOf(node.Status.Allocatable)
	ni.AllowedPods = 0
	if q, ok := node.Status.Allocatable[corev1.ResourcePods]; ok {
		ni.AllowedPods = q.Value()
	}
}

// Name is the node's name.
func (ni *NodeInfo) Name() string { return ni.Node.Name }

// AddPod counts a pod on the node.
func (ni *NodeInfo) AddPod(pi *PodInfo) {
	ni.Pods = append(ni.Pods, pi)
	ni.Requested.add(pi.Requests)
	ni.NonZeroRequested.add(pi.NonZero)
	for _, p := range pi.Ports {
		if ni.usedPorts == nil {
			ni.usedPorts = map[HostPort]int{}
		}
		ni.usedPorts[p]++
	}
	if pi.hasRequiredAntiAffinity() {
		ni.antiAffinityPods++
	}
	if hasPodAffinity(pi.Pod) {
		ni.affinityPods++
	}
	if pi.owner != "" {
		if ni.owners == nil {
			ni.owners = map[string]int{}
		}
		ni.owners[pi.owner]++
	}
}

// RemovePod stops counting the pod with the given uid; it reports
// whether the pod was there.
func (ni *NodeInfo) RemovePod(uid string) bool {
	for i, pi := range ni.Pods {
		if string(pi.Pod.UID) != uid {
			continue
		}
		last := len(ni.Pods) - 1
		ni.Pods[i] = ni.Pods[last]
		ni.Pods[last] = nil
		ni.Pods = ni.Pods[:last]
		ni.Requested.sub(pi.Requests)
		ni.NonZeroRequested.sub(pi.NonZero)
		for _, p := range pi.Ports {
			if ni.usedPorts[p]--; ni.usedPorts[p] <= 0 {
				delete(ni.usedPorts, p)
			}
		}
		if pi.hasRequiredAntiAffinity() {
			ni.antiAffinityPods--
		}
		if hasPodAffinity(pi.Pod) {
			ni.affinityPods--
		}
		if pi.owner != "" {
			if ni.owners[pi.owner]--; ni.owners[pi.owner] <= 0 {
				delete(ni.owners, pi.owner)
			}
		}
		return true
	}
	return false
}

// without is a copy of the node without the given pods, for the
// preemption dry run.
func (ni *NodeInfo) without(drop func(*PodInfo) bool) *NodeInfo {
	c := NewNodeInfo(ni.Node)
	for _, pi := range ni.Pods {
		if !drop(pi) {
			c.AddPod(pi)
		}
	}
	return c
}

// Snapshot is the cluster as one scheduling decision sees it.
type Snapshot struct {
	// Nodes are every node the scheduler knows, in any order.
	Nodes []*NodeInfo
	// NamespaceLabels gives a namespace's labels, for pod affinity
	// terms with a namespaceSelector; nil knows no labels.
	NamespaceLabels func(namespace string) map[string]string
}
