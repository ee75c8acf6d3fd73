package placement

import (
	corev1 "k8s.io/api/core/v1"
)

// maxScore is what each score plugin gives its best node.
const maxScore = 100

// The weights of kube-scheduler's default profile for the scores kept
// here.
const (
	weightTaints      = 3
	weightAffinity    = 2
	weightPodAffinity = 2
	weightSpread      = 2
	weightLeast       = 1
	weightBalanced    = 1
)

// scores gives each feasible node its weighted total: resource scores
// per node, and scores normalised across nodes (taints, preferred node
// affinity, spread), which need every node's raw count first.
func (c *cycle) scores(nodes []*NodeInfo, snap *Snapshot) []int64 {
	n := len(nodes)
	total := make([]int64, n)
	taints := make([]int64, n)
	affinity := make([]int64, n)
	peers := make([]int64, n)
	var maxTaints, maxAffinity, maxPeers int64
	owner := c.info.owner
	for i, ni := range nodes {
		total[i] = weightLeast*leastAllocated(c.info.NonZero, ni) + weightBalanced*balanced(c.info.NonZero, ni)
		taints[i] = int64(countPreferNoSchedule(ni.Node.Spec.Taints, c.pod.Spec.Tolerations))
		affinity[i] = preferredScore(c.pod, ni.Node)
		if owner != "" {
			peers[i] = int64(ni.owners[owner])
		}
		maxTaints, maxAffinity, maxPeers = max(maxTaints, taints[i]), max(maxAffinity, affinity[i]), max(maxPeers, peers[i])
	}
	c.addPodAffinity(total, nodes, snap)
	for i := range nodes {
		// Fewer untolerated PreferNoSchedule taints and fewer pods of the
		// same owner score higher; more preferred affinity weight too.
		if maxTaints > 0 {
			total[i] += weightTaints * (maxScore - taints[i]*maxScore/maxTaints)
		} else {
			total[i] += weightTaints * maxScore
		}
		if maxAffinity > 0 {
			total[i] += weightAffinity * affinity[i] * maxScore / maxAffinity
		}
		if maxPeers > 0 {
			total[i] += weightSpread * (maxScore - peers[i]*maxScore/maxPeers)
		} else {
			total[i] += weightSpread * maxScore
		}
	}
	return total
}

// controllerOf is the uid of the pod's controller (its ReplicaSet, Job,
// StatefulSet), the group its spread is counted in.
func controllerOf(pod *corev1.Pod) string {
	for i := range pod.OwnerReferences {
		if r := &pod.OwnerReferences[i]; r.Controller != nil && *r.Controller {
			return string(r.UID)
		}
	}
	return ""
}

// leastAllocated favours nodes with more room left: the mean over cpu
// and memory of the free share after placing the pod.
func leastAllocated(req Resources, ni *NodeInfo) int64 {
	free := func(requested, capacity int64) int64 {
		if capacity <= 0 || requested > capacity {
			return 0
		}
		return (capacity - requested) * maxScore / capacity
	}
	cpu := free(ni.NonZeroRequested.MilliCPU+req.MilliCPU, ni.Allocatable.MilliCPU)
	mem := free(ni.NonZeroRequested.Memory+req.Memory, ni.Allocatable.Memory)
	return (cpu + mem) / 2
}

// balanced favours nodes whose cpu and memory fill up evenly: 100 less
// the standard deviation of the two fractions used, in percent.
func balanced(req Resources, ni *NodeInfo) int64 {
	frac := func(requested, capacity int64) float64 {
		if capacity <= 0 {
			return 1
		}
		return min(float64(requested)/float64(capacity), 1)
	}
	cpu := frac(ni.NonZeroRequested.MilliCPU+req.MilliCPU, ni.Allocatable.MilliCPU)
	mem := frac(ni.NonZeroRequested.Memory+req.Memory, ni.Allocatable.Memory)
	d := cpu - mem
	if d < 0 {
		d = -d
	}
	return int64((1 - d/2) * maxScore)
}

// addPodAffinity adds InterPodAffinity's score: each node's domains'
// worth, scaled so the worst node gets 0 and the best maxScore.
func (c *cycle) addPodAffinity(total []int64, nodes []*NodeInfo, snap *Snapshot) {
	domains := affinityDomains(c.pod, snap)
	if len(domains) == 0 {
		return
	}
	raw := make([]int64, len(nodes))
	lo, hi := int64(0), int64(0)
	for i, ni := range nodes {
		raw[i] = affinityScore(ni.Node, domains)
		if i == 0 || raw[i] < lo {
			lo = raw[i]
		}
		if i == 0 || raw[i] > hi {
			hi = raw[i]
		}
	}
	if hi == lo {
		return
	}
	for i := range nodes {
		total[i] += weightPodAffinity * (raw[i] - lo) * maxScore / (hi - lo)
	}
}
