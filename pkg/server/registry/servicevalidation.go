package registry

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	unversionedvalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var (
	serviceTypes     = []string{"ClusterIP", "ExternalName", "LoadBalancer", "NodePort"}
	sessionAffinitys = []string{"ClientIP", "None"}
	portProtocols    = []string{"SCTP", "TCP", "UDP"}
)

// validateServiceSpec holds a Service to kube's ValidateService rules that
// do not need the allocator: ports, names, type, selector, affinity.
func validateServiceSpec(spec *corev1.ServiceSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	headless := spec.ClusterIP == corev1.ClusterIPNone
	switch spec.Type {
	case corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeNodePort:
		if headless {
			errs = append(errs, field.Invalid(p.Child("clusterIPs").Index(0), spec.ClusterIP, fmt.Sprintf("may not be set to 'None' for %s services", spec.Type)))
		}
	case corev1.ServiceTypeExternalName:
		if spec.ClusterIP != "" || len(spec.ClusterIPs) > 0 {
			errs = append(errs, field.Forbidden(p.Child("clusterIPs"), "may not be set for ExternalName services"))
		}
		if spec.ExternalName == "" {
			errs = append(errs, field.Required(p.Child("externalName"), ""))
		} else {
			for _, msg := range validation.IsDNS1123Subdomain(spec.ExternalName) {
				errs = append(errs, field.Invalid(p.Child("externalName"), spec.ExternalName, msg))
			}
		}
	}
	if len(spec.Ports) == 0 && !headless && spec.Type != corev1.ServiceTypeExternalName {
		errs = append(errs, field.Required(p.Child("ports"), ""))
	}
	names := map[string]bool{}
	for i := range spec.Ports {
		errs = append(errs, validateServicePort(&spec.Ports[i], len(spec.Ports) > 1, names, p.Child("ports").Index(i))...)
	}
	if spec.Selector != nil {
		errs = append(errs, unversionedvalidation.ValidateLabels(spec.Selector, p.Child("selector"))...)
	}
	switch {
	case spec.SessionAffinity == "":
		errs = append(errs, field.Required(p.Child("sessionAffinity"), ""))
	case !slices.Contains(sessionAffinitys, string(spec.SessionAffinity)):
		errs = append(errs, field.NotSupported(p.Child("sessionAffinity"), spec.SessionAffinity, sessionAffinitys))
	}
	switch {
	case spec.Type == "":
		errs = append(errs, field.Required(p.Child("type"), ""))
	case !slices.Contains(serviceTypes, string(spec.Type)):
		errs = append(errs, field.NotSupported(p.Child("type"), spec.Type, serviceTypes))
	}
	if spec.Type == corev1.ServiceTypeClusterIP {
		for i, port := range spec.Ports {
			if port.NodePort != 0 {
				errs = append(errs, field.Forbidden(p.Child("ports").Index(i).Child("nodePort"), "may not be used when `type` is 'ClusterIP'"))
			}
		}
	}
	seen := map[[2]any]bool{}
	for i, port := range spec.Ports {
		if port.NodePort == 0 {
			continue
		}
		key := [2]any{port.NodePort, port.Protocol}
		if seen[key] {
			errs = append(errs, field.Duplicate(p.Child("ports").Index(i).Child("nodePort"), port.NodePort))
		}
		seen[key] = true
	}
	if spec.AllocateLoadBalancerNodePorts != nil && spec.Type != corev1.ServiceTypeLoadBalancer {
		errs = append(errs, field.Forbidden(p.Child("allocateLoadBalancerNodePorts"), "may only be used when `type` is 'LoadBalancer'"))
	}
	return errs
}

func validateServicePort(sp *corev1.ServicePort, requireName bool, names map[string]bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case requireName && sp.Name == "":
		errs = append(errs, field.Required(p.Child("name"), ""))
	case sp.Name != "":
		for _, msg := range validation.IsDNS1123Label(sp.Name) {
			errs = append(errs, field.Invalid(p.Child("name"), sp.Name, msg))
		}
		if names[sp.Name] {
			errs = append(errs, field.Duplicate(p.Child("name"), sp.Name))
		}
		names[sp.Name] = true
	}
	for _, msg := range validation.IsValidPortNum(int(sp.Port)) {
		errs = append(errs, field.Invalid(p.Child("port"), sp.Port, msg))
	}
	switch {
	case sp.Protocol == "":
		errs = append(errs, field.Required(p.Child("protocol"), ""))
	case !slices.Contains(portProtocols, string(sp.Protocol)):
		errs = append(errs, field.NotSupported(p.Child("protocol"), sp.Protocol, portProtocols))
	}
	errs = append(errs, validatePortNumOrName(sp.TargetPort, p.Child("targetPort"))...)
	return errs
}

// validatePortNumOrName is kube's rule for a port given by number or by
// the name of a container port.
func validatePortNumOrName(port intstr.IntOrString, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch port.Type {
	case intstr.Int:
		for _, msg := range validation.IsValidPortNum(port.IntValue()) {
			errs = append(errs, field.Invalid(p, port.IntValue(), msg))
		}
	case intstr.String:
		for _, msg := range validation.IsValidPortName(port.StrVal) {
			errs = append(errs, field.Invalid(p, port.StrVal, msg))
		}
	}
	return errs
}
