package registry

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// cellLimit is how many addresses or ports kubectl shows in a cell
// before "+ N more...".
const cellLimit = 3

// endpointsCell is kubectl's Endpoints cell: ip:port for each address
// and port, the first three, then a count of the rest.
func endpointsCell(obj map[string]any) any {
	//lint:ignore SA1019 core/v1 Endpoints are deprecated but served, as in kube 1.33
	var ep corev1.Endpoints
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, &ep); err != nil {
		return "<unknown>"
	}
	if len(ep.Subsets) == 0 {
		return "<none>"
	}
	var list []string
	count := 0
	add := func(s string) {
		count++
		if len(list) < cellLimit {
			list = append(list, s)
		}
	}
	for _, ss := range ep.Subsets {
		if len(ss.Ports) == 0 {
			// A headless Service may have no ports.
			for _, a := range ss.Addresses {
				add(a.IP)
			}
			continue
		}
		for _, p := range ss.Ports {
			for _, a := range ss.Addresses {
				add(net.JoinHostPort(a.IP, strconv.Itoa(int(p.Port))))
			}
		}
	}
	return withMore(list, count, "")
}

// sliceCell computes an EndpointSlice cell from the typed slice.
func sliceCell(f func(*discoveryv1.EndpointSlice) string) func(map[string]any) any {
	return func(obj map[string]any) any {
		var s discoveryv1.EndpointSlice
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, &s); err != nil {
			return "<unknown>"
		}
		return f(&s)
	}
}

func endpointSlicePorts(s *discoveryv1.EndpointSlice) string {
	var list []string
	for _, p := range s.Ports {
		port := "*"
		switch {
		case p.Port != nil:
			port = strconv.Itoa(int(*p.Port))
		case p.Name != nil:
			port = *p.Name
		}
		list = append(list, port)
	}
	return withMore(list[:min(len(list), cellLimit)], len(list), "<unset>")
}

func endpointSliceEndpoints(s *discoveryv1.EndpointSlice) string {
	var list []string
	count := 0
	for _, e := range s.Endpoints {
		for _, a := range e.Addresses {
			count++
			if len(list) < cellLimit {
				list = append(list, a)
			}
		}
	}
	return withMore(list, count, "<unset>")
}

// withMore joins the shown items and counts those left out, as kubectl
// does; empty is what an empty list prints.
func withMore(list []string, count int, empty string) string {
	s := strings.Join(list, ",")
	if count > len(list) {
		return fmt.Sprintf("%s + %d more...", s, count-len(list))
	}
	if s == "" {
		return empty
	}
	return s
}
