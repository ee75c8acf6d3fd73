package placement

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Defaults the scorer assumes for containers that request nothing, so
// that such pods still spread (kube-scheduler's non-zero requests).
const (
	defaultMilliCPU = 100
	defaultMemory   = 200 * 1024 * 1024
)

// Resources are amounts of the resources the scheduler checks.
type Resources struct {
	MilliCPU         int64
	Memory           int64
	EphemeralStorage int64
	// Scalar holds extended resources (example.com/gpu, hugepages-2Mi).
	Scalar map[corev1.ResourceName]int64
}

func (r *Resources) add(o Resources) {
	r.MilliCPU += o.MilliCPU
	r.Memory += o.Memory
	r.EphemeralStorage += o.EphemeralStorage
	for n, v := range o.Scalar {
		if r.Scalar == nil {
			r.Scalar = map[corev1.ResourceName]int64{}
		}
		r.Scalar[n] += v
	}
}

func (r *Resources) sub(o Resources) {
	r.MilliCPU -= o.MilliCPU
	r.Memory -= o.Memory
	r.EphemeralStorage -= o.EphemeralStorage
	for n, v := range o.Scalar {
		if r.Scalar != nil {
			r.Scalar[n] -= v
		}
	}
}

// max raises each amount of r to o's where o's is larger.
func (r *Resources) max(o Resources) {
	r.MilliCPU = max(r.MilliCPU, o.MilliCPU)
	r.Memory = max(r.Memory, o.Memory)
	r.EphemeralStorage = max(r.EphemeralStorage, o.EphemeralStorage)
	for n, v := range o.Scalar {
		if r.Scalar == nil {
			r.Scalar = map[corev1.ResourceName]int64{}
		}
		r.Scalar[n] = max(r.Scalar[n], v)
	}
}

func (r Resources) clone() Resources {
	c := r
	if r.Scalar != nil {
		c.Scalar = make(map[corev1.ResourceName]int64, len(r.Scalar))
		for n, v := range r.Scalar {
			c.Scalar[n] = v
		}
	}
	return c
}

// ResourcesOf reads a resource list (a node's allocatable, a container's
// requests). Pods are not a resource here: NodeInfo counts them.
func ResourcesOf(l corev1.ResourceList) Resources {
	var r Resources
	for n, q := range l {
		switch n {
		case corev1.ResourceCPU:
			r.MilliCPU = q.MilliValue()
		case corev1.ResourceMemory:
			r.Memory = q.Value()
		case corev1.ResourceEphemeralStorage:
			r.EphemeralStorage = q.Value()
		case corev1.ResourcePods:
		default:
			if isScalar(n) {
				if r.Scalar == nil {
					r.Scalar = map[corev1.ResourceName]int64{}
				}
				r.Scalar[n] = q.Value()
			}
		}
	}
	return r
}

// isScalar: extended resources (a domain-qualified name outside
// kubernetes.io) and hugepages are checked one by one like cpu.
func isScalar(n corev1.ResourceName) bool {
	s := string(n)
	if strings.HasPrefix(s, corev1.ResourceHugePagesPrefix) {
		return true
	}
	domain, _, qualified := strings.Cut(s, "/")
	return qualified && domain != "kubernetes.io" && !strings.HasSuffix(domain, ".kubernetes.io") &&
		!strings.HasPrefix(s, corev1.DefaultResourceRequestsPrefix)
}

// PodRequests is what a pod asks of a node, as kube-scheduler counts it:
// the sum of its containers, or the largest init container when that is
// more (restartable init containers, sidecars, keep running and so add
// to both), plus the pod's overhead. nonZero fills in the scorer's
// defaults for containers that request no cpu or memory.
func PodRequests(pod *corev1.Pod, nonZero bool) Resources {
	of := func(c *corev1.Container) Resources {
		r := ResourcesOf(c.Resources.Requests)
		if nonZero {
			if _, ok := c.Resources.Requests[corev1.ResourceCPU]; !ok {
				r.MilliCPU = defaultMilliCPU
			}
			if _, ok := c.Resources.Requests[corev1.ResourceMemory]; !ok {
				r.Memory = defaultMemory
			}
		}
		return r
	}
	var reqs Resources
	for i := range pod.Spec.Containers {
		reqs.add(of(&pod.Spec.Containers[i]))
	}
	var sidecars, initMax Resources
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		cr := of(c)
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			reqs.add(cr)
			sidecars.add(cr)
			cr = sidecars.clone()
		} else {
			cr.add(sidecars)
		}
		initMax.max(cr)
	}
	reqs.max(initMax)
	reqs.add(ResourcesOf(pod.Spec.Overhead))
	return reqs
}
