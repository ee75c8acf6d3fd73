package placement

import (
	corev1 "k8s.io/api/core/v1"
)

// HostPort is a port a pod takes on its node's addresses.
type HostPort struct {
	IP       string // "0.0.0.0" for all addresses
	Protocol corev1.Protocol
	Port     int32
}

const anyIP = "0.0.0.0"

// hostPorts lists the host ports of the pod's containers and of its
// sidecars (restartable init containers, which run as long as the pod),
// with kube's defaults (all addresses, TCP).
func hostPorts(pod *corev1.Pod) []HostPort {
	var ps []HostPort
	running := make([]*corev1.Container, 0, len(pod.Spec.Containers))
	for i := range pod.Spec.InitContainers {
		if c := &pod.Spec.InitContainers[i]; c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			running = append(running, c)
		}
	}
	for i := range pod.Spec.Containers {
		running = append(running, &pod.Spec.Containers[i])
	}
	for _, c := range running {
		for _, p := range c.Ports {
			if p.HostPort <= 0 {
				continue
			}
			hp := HostPort{IP: p.HostIP, Protocol: p.Protocol, Port: p.HostPort}
			if hp.IP == "" {
				hp.IP = anyIP
			}
			if hp.Protocol == "" {
				hp.Protocol = corev1.ProtocolTCP
			}
			ps = append(ps, hp)
		}
	}
	return ps
}

// portsConflict reports whether any wanted port is taken on the node:
// the same protocol and port on the same address, or on all addresses
// on either side.
func portsConflict(want []HostPort, used map[HostPort]int) bool {
	if len(used) == 0 {
		return false
	}
	for _, w := range want {
		if w.IP == anyIP {
			for u := range used {
				if u.Protocol == w.Protocol && u.Port == w.Port {
					return true
				}
			}
			continue
		}
		if used[w] > 0 || used[HostPort{IP: anyIP, Protocol: w.Protocol, Port: w.Port}] > 0 {
			return true
		}
	}
	return false
}
