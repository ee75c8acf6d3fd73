//lint:file-ignore SA1019 core/v1 Endpoints are deprecated but kept up to date, as kube 1.33 keeps them

package endpoints

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/setpoint-dev/setpoint/pkg/server/controllers/internal/podcondition"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// maxEndpointsPerSlice is kube-controller-manager's default
// --max-endpoints-per-slice.
const maxEndpointsPerSlice = 100

// group is the endpoints that share one resolution of the Service's
// ports: one or more slices, one Endpoints subset pair.
type group struct {
	ports     []discoveryv1.EndpointPort
	endpoints []discoveryv1.Endpoint
}

// desired computes the endpoint groups of svc from pods (those in its
// namespace its selector picks), sorted so the result is stable.
func desired(svc *corev1.Service, pods []*corev1.Pod) []group {
	byPorts := map[string]*group{}
	for _, pod := range pods {
		ep, ok := endpointOf(svc, pod)
		if !ok {
			continue
		}
		ports := portsOf(svc, pod)
		key := portsKey(ports)
		g := byPorts[key]
		if g == nil {
			g = &group{ports: ports}
			byPorts[key] = g
		}
		g.endpoints = append(g.endpoints, ep)
	}
	out := make([]group, 0, len(byPorts))
	for _, g := range byPorts {
		slices.SortFunc(g.endpoints, func(a, b discoveryv1.Endpoint) int {
			return cmp.Compare(a.TargetRef.Name, b.TargetRef.Name)
		})
		out = append(out, *g)
	}
	slices.SortFunc(out, func(a, b group) int { return cmp.Compare(portsKey(a.ports), portsKey(b.ports)) })
	return out
}

// endpointOf is pod as an endpoint of svc, if it is one: it has an IP
// and has not ended.
func endpointOf(svc *corev1.Service, pod *corev1.Pod) (discoveryv1.Endpoint, bool) {
	if pod.Status.PodIP == "" || pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return discoveryv1.Endpoint{}, false
	}
	// A terminating pod stays in slices (serving while it still passes
	// readiness, never ready); the legacy Endpoints leave it out.
	terminating := pod.DeletionTimestamp != nil
	serving := podcondition.True(pod, corev1.PodReady) || svc.Spec.PublishNotReadyAddresses
	ready := serving && !terminating
	ep := discoveryv1.Endpoint{
		Addresses: []string{pod.Status.PodIP},
		Conditions: discoveryv1.EndpointConditions{
			Ready: &ready, Serving: &serving, Terminating: &terminating,
		},
		TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
	}
	if pod.Spec.NodeName != "" {
		node := pod.Spec.NodeName
		ep.NodeName = &node
	}
	return ep, true
}

// portsOf resolves svc's ports for pod: a numeric targetPort is taken
// as it is; a named one is the pod's container port of that name and
// protocol, and a port the pod does not name is left out.
func portsOf(svc *corev1.Service, pod *corev1.Pod) []discoveryv1.EndpointPort {
	var out []discoveryv1.EndpointPort
	for _, sp := range svc.Spec.Ports {
		n, ok := targetPort(sp, pod)
		if !ok {
			continue
		}
		name, proto := sp.Name, sp.Protocol
		p := discoveryv1.EndpointPort{Name: &name, Port: &n, Protocol: &proto, AppProtocol: sp.AppProtocol}
		out = append(out, p)
	}
	return out
}

func targetPort(sp corev1.ServicePort, pod *corev1.Pod) (int32, bool) {
	if sp.TargetPort.Type == intstr.Int {
		if sp.TargetPort.IntVal == 0 {
			return sp.Port, true
		}
		return sp.TargetPort.IntVal, true
	}
	for _, c := range pod.Spec.Containers {
		for _, cp := range c.Ports {
			if cp.Name == sp.TargetPort.StrVal && (cp.Protocol == sp.Protocol || cp.Protocol == "" && sp.Protocol == corev1.ProtocolTCP) {
				return cp.ContainerPort, true
			}
		}
	}
	return 0, false
}

func portsKey(ports []discoveryv1.EndpointPort) string {
	parts := make([]string, len(ports))
	for i, p := range ports {
		parts[i] = *p.Name + "/" + string(*p.Protocol) + "/" + strconv.Itoa(int(*p.Port))
	}
	return strings.Join(parts, ",")
}

// subsets is the legacy Endpoints form of groups: one subset per group,
// ready addresses apart from not-ready ones; terminating pods are left
// out, as kube's endpoints controller leaves them.
func subsets(groups []group) []corev1.EndpointSubset {
	var out []corev1.EndpointSubset
	for _, g := range groups {
		var ss corev1.EndpointSubset
		for _, ep := range g.endpoints {
			if *ep.Conditions.Terminating {
				continue
			}
			addr := corev1.EndpointAddress{IP: ep.Addresses[0], NodeName: ep.NodeName, TargetRef: ep.TargetRef}
			if *ep.Conditions.Ready {
				ss.Addresses = append(ss.Addresses, addr)
			} else {
				ss.NotReadyAddresses = append(ss.NotReadyAddresses, addr)
			}
		}
		if len(ss.Addresses)+len(ss.NotReadyAddresses) == 0 {
			continue
		}
		for _, p := range g.ports {
			ss.Ports = append(ss.Ports, corev1.EndpointPort{Name: *p.Name, Port: *p.Port, Protocol: *p.Protocol, AppProtocol: p.AppProtocol})
		}
		out = append(out, ss)
	}
	return out
}
