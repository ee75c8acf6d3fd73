package registry

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Allocate assigns a Service its cluster IP and node ports, as
// kube-apiserver's allocators do: a requested value must be in range and
// free; an unrequested cluster IP is drawn at random from the upper part
// of the range (the lower part is left for requested ones), a node port
// from the whole port range.
func (s serviceStrategy) Allocate(obj, old map[string]any, taken []map[string]any) field.ErrorList {
	spec, err := fromField[corev1.ServiceSpec](obj, "spec")
	if err != nil {
		return field.ErrorList{field.InternalError(field.NewPath("spec"), err)}
	}
	var oldSpec *corev1.ServiceSpec
	if old != nil {
		if oldSpec, err = fromField[corev1.ServiceSpec](old, "spec"); err != nil {
			return field.ErrorList{field.InternalError(field.NewPath("spec"), err)}
		}
	}
	ips, ports := map[netip.Addr]bool{s.ranges.KubernetesServiceIP(): false}, map[int32]bool{}
	for _, o := range taken {
		other, err := fromField[corev1.ServiceSpec](o, "spec")
		if err != nil {
			continue
		}
		for _, ip := range other.ClusterIPs {
			if a, err := netip.ParseAddr(ip); err == nil {
				ips[a] = true
			}
		}
		for _, p := range other.Ports {
			ports[p.NodePort] = true
		}
	}
	errs := s.allocateClusterIP(spec, oldSpec, ips)
	errs = append(errs, s.allocateNodePorts(spec, oldSpec, ports)...)
	if len(errs) > 0 {
		return errs
	}
	if err := setField(obj, "spec", spec); err != nil {
		return field.ErrorList{field.InternalError(field.NewPath("spec"), err)}
	}
	return nil
}

func (s serviceStrategy) allocateClusterIP(spec, old *corev1.ServiceSpec, taken map[netip.Addr]bool) field.ErrorList {
	if spec.Type == corev1.ServiceTypeExternalName {
		return nil
	}
	if spec.ClusterIP == "" && len(spec.ClusterIPs) > 0 {
		spec.ClusterIP = spec.ClusterIPs[0]
	}
	p := field.NewPath("spec", "clusterIPs").Index(0)
	switch {
	case spec.ClusterIP == corev1.ClusterIPNone:
	case spec.ClusterIP == "":
		ip, ok := s.freeIP(taken)
		if !ok {
			return field.ErrorList{field.InternalError(p, fmt.Errorf("failed to allocate a serviceIP: range is full"))}
		}
		spec.ClusterIP = ip.String()
	case old != nil && old.ClusterIP == spec.ClusterIP:
		// Its own, from before.
	default:
		ip, err := netip.ParseAddr(spec.ClusterIP)
		if err != nil {
			return field.ErrorList{field.Invalid(p, spec.ClusterIP, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")}
		}
		if !s.ranges.ClusterIPs.Contains(ip) || ip == s.ranges.ClusterIPs.Masked().Addr() || ip == lastAddr(s.ranges.ClusterIPs) {
			return field.ErrorList{field.Invalid(p, spec.ClusterIP, fmt.Sprintf(
				"failed to allocate IP %s: the provided IP (%s) is not in the valid range. The range of valid IPs is %s", ip, ip, s.ranges.ClusterIPs))}
		}
		if taken[ip] {
			return field.ErrorList{field.Invalid(p, spec.ClusterIP, fmt.Sprintf("failed to allocate IP %s: provided IP is already allocated", ip))}
		}
	}
	if len(spec.ClusterIPs) == 0 {
		spec.ClusterIPs = []string{spec.ClusterIP}
	}
	if len(spec.IPFamilies) == 0 {
		spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol}
	}
	if spec.IPFamilyPolicy == nil {
		single := corev1.IPFamilyPolicySingleStack
		spec.IPFamilyPolicy = &single
	}
	return nil
}

// freeIP draws a free address: first from the upper band, which kube
// keeps for dynamic allocation, then anywhere in the range.
func (s serviceStrategy) freeIP(taken map[netip.Addr]bool) (netip.Addr, bool) {
	base := s.ranges.ClusterIPs.Masked().Addr()
	bits := base.BitLen() - s.ranges.ClusterIPs.Bits()
	size := int64(1)<<min(bits, 62) - 2 // without the network and broadcast addresses
	if size < 1 {
		return netip.Addr{}, false
	}
	band := min(max(16, size/16), 256)
	if band > size {
		band = 0
	}
	try := func(lo, hi int64) (netip.Addr, bool) {
		if hi < lo {
			return netip.Addr{}, false
		}
		n := hi - lo + 1
		start := lo + rand.Int64N(n)
		for i := int64(0); i < n && i < 4096; i++ {
			off := lo + (start-lo+i)%n
			ip := addOffset(base, off)
			if _, used := taken[ip]; !used {
				return ip, true
			}
		}
		return netip.Addr{}, false
	}
	if ip, ok := try(band+1, size); ok {
		return ip, true
	}
	return try(1, band)
}

func (s serviceStrategy) allocateNodePorts(spec, old *corev1.ServiceSpec, taken map[int32]bool) field.ErrorList {
	if !needsNodePorts(spec) {
		return nil
	}
	own := map[int32]bool{}
	if old != nil {
		for _, p := range old.Ports {
			own[p.NodePort] = true
		}
	}
	lo, hi := int32(s.ranges.NodePorts[0]), int32(s.ranges.NodePorts[1])
	var errs field.ErrorList
	for i := range spec.Ports {
		p := &spec.Ports[i]
		path := field.NewPath("spec", "ports").Index(i).Child("nodePort")
		switch {
		case p.NodePort == 0:
			n := hi - lo + 1
			start := rand.Int32N(n)
			for j := int32(0); j < n; j++ {
				port := lo + (start+j)%n
				if !taken[port] {
					p.NodePort, taken[port] = port, true
					break
				}
			}
			if p.NodePort == 0 {
				errs = append(errs, field.InternalError(path, fmt.Errorf("failed to allocate a nodePort: range is full")))
			}
		case own[p.NodePort]:
		case p.NodePort < lo || p.NodePort > hi:
			errs = append(errs, field.Invalid(path, p.NodePort, fmt.Sprintf("provided port is not in the valid range. The range of valid ports is %d-%d", lo, hi)))
		case taken[p.NodePort]:
			errs = append(errs, field.Invalid(path, p.NodePort, "provided port is already allocated"))
		default:
			taken[p.NodePort] = true
		}
	}
	return errs
}

func addOffset(base netip.Addr, off int64) netip.Addr {
	n := new(big.Int).SetBytes(base.AsSlice())
	n.Add(n, big.NewInt(off))
	b := n.Bytes()
	out := make([]byte, len(base.AsSlice()))
	copy(out[len(out)-len(b):], b)
	a, _ := netip.AddrFromSlice(out)
	return a
}

func lastAddr(p netip.Prefix) netip.Addr {
	base := p.Masked().Addr()
	bits := base.BitLen() - p.Bits()
	return addOffset(base, int64(1)<<min(bits, 62)-1)
}
