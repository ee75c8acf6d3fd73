package registry

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ServiceRanges are where the server allocates Services' cluster IPs and
// node ports: kube-apiserver's --service-cluster-ip-range and
// --service-node-port-range.
type ServiceRanges struct {
	ClusterIPs netip.Prefix
	// NodePorts is the first and last port, inclusive.
	NodePorts [2]int
}

// DefaultServiceRanges are kubeadm's cluster IP range and kube's node
// port range.
func DefaultServiceRanges() ServiceRanges {
	return ServiceRanges{ClusterIPs: netip.MustParsePrefix("10.96.0.0/12"), NodePorts: [2]int{30000, 32767}}
}

// KubernetesServiceIP is the cluster IP of the "kubernetes" Service in
// default: the first address of the range, which kube-apiserver
// reserves for it.
func (r ServiceRanges) KubernetesServiceIP() netip.Addr {
	return r.ClusterIPs.Masked().Addr().Next()
}

// serviceStrategy applies kube's Service defaults and validation and
// allocates cluster IPs and node ports from its ranges.
type serviceStrategy struct {
	ranges ServiceRanges
}

func (s serviceStrategy) PrepareForCreate(_ time.Time, obj map[string]any) field.ErrorList {
	spec, err := fromField[corev1.ServiceSpec](obj, "spec")
	if err != nil {
		return field.ErrorList{field.Invalid(field.NewPath("spec"), nil, err.Error())}
	}
	defaultServiceSpec(spec)
	if err := setField(obj, "spec", spec); err != nil {
		return field.ErrorList{field.InternalError(field.NewPath("spec"), err)}
	}
	// A new Service has no status of its own: a load balancer's comes
	// from its controller.
	obj["status"] = map[string]any{"loadBalancer": map[string]any{}}
	return validateServiceSpec(spec, field.NewPath("spec"))
}

func (s serviceStrategy) PrepareForUpdate(_ time.Time, obj, old map[string]any) field.ErrorList {
	spec, err := fromField[corev1.ServiceSpec](obj, "spec")
	if err != nil {
		return field.ErrorList{field.Invalid(field.NewPath("spec"), nil, err.Error())}
	}
	oldSpec, err := fromField[corev1.ServiceSpec](old, "spec")
	if err != nil {
		return field.ErrorList{field.InternalError(field.NewPath("spec"), err)}
	}
	defaultServiceSpec(spec)
	keepAllocated(spec, oldSpec)
	if err := setField(obj, "spec", spec); err != nil {
		return field.ErrorList{field.InternalError(field.NewPath("spec"), err)}
	}
	obj["status"] = old["status"]
	errs := validateServiceSpec(spec, field.NewPath("spec"))
	if oldSpec.ClusterIP != "" && spec.ClusterIP != oldSpec.ClusterIP && spec.Type != corev1.ServiceTypeExternalName && oldSpec.Type != corev1.ServiceTypeExternalName {
		errs = append(errs, field.Invalid(field.NewPath("spec", "clusterIPs").Index(0), spec.ClusterIP, "may not change once set"))
	}
	return errs
}

// PrepareForStatusUpdate keeps the spec: status writes change a load
// balancer's state alone.
func (serviceStrategy) PrepareForStatusUpdate(obj, old map[string]any) field.ErrorList {
	keepSpec(obj, old)
	return nil
}

// defaultServiceSpec fills in what kube's SetDefaults_Service does.
func defaultServiceSpec(spec *corev1.ServiceSpec) {
	if spec.SessionAffinity == "" {
		spec.SessionAffinity = corev1.ServiceAffinityNone
	}
	switch spec.SessionAffinity {
	case corev1.ServiceAffinityNone:
		spec.SessionAffinityConfig = nil
	case corev1.ServiceAffinityClientIP:
		if c := spec.SessionAffinityConfig; c == nil || c.ClientIP == nil || c.ClientIP.TimeoutSeconds == nil {
			timeout := corev1.DefaultClientIPServiceAffinitySeconds
			spec.SessionAffinityConfig = &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: &timeout}}
		}
	}
	if spec.Type == "" {
		spec.Type = corev1.ServiceTypeClusterIP
	}
	for i := range spec.Ports {
		p := &spec.Ports[i]
		if p.Protocol == "" {
			p.Protocol = corev1.ProtocolTCP
		}
		if p.TargetPort == intstr.FromInt32(0) || p.TargetPort == intstr.FromString("") {
			p.TargetPort = intstr.FromInt32(p.Port)
		}
	}
	external := spec.Type == corev1.ServiceTypeNodePort || spec.Type == corev1.ServiceTypeLoadBalancer || len(spec.ExternalIPs) > 0
	if external && spec.ExternalTrafficPolicy == "" {
		spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster
	}
	if spec.InternalTrafficPolicy == nil && spec.Type != corev1.ServiceTypeExternalName {
		p := corev1.ServiceInternalTrafficPolicyCluster
		spec.InternalTrafficPolicy = &p
	}
	if spec.Type == corev1.ServiceTypeLoadBalancer && spec.AllocateLoadBalancerNodePorts == nil {
		yes := true
		spec.AllocateLoadBalancerNodePorts = &yes
	}
}

// keepAllocated carries the cluster IPs and node ports an update leaves
// out over from the stored Service, as kube-apiserver does: clients that
// PUT what they once created do not release them.
func keepAllocated(spec, old *corev1.ServiceSpec) {
	if spec.Type == corev1.ServiceTypeExternalName || old.Type == corev1.ServiceTypeExternalName {
		return
	}
	if spec.ClusterIP == "" && len(spec.ClusterIPs) == 0 {
		spec.ClusterIP, spec.ClusterIPs = old.ClusterIP, slices.Clone(old.ClusterIPs)
	}
	if len(spec.IPFamilies) == 0 {
		spec.IPFamilies = slices.Clone(old.IPFamilies)
	}
	if spec.IPFamilyPolicy == nil {
		spec.IPFamilyPolicy = old.IPFamilyPolicy
	}
	if !needsNodePorts(spec) {
		return
	}
	for i := range spec.Ports {
		p := &spec.Ports[i]
		if p.NodePort != 0 {
			continue
		}
		for _, o := range old.Ports {
			if o.Port == p.Port && o.Protocol == p.Protocol {
				p.NodePort = o.NodePort
			}
		}
	}
}

func needsNodePorts(spec *corev1.ServiceSpec) bool {
	return spec.Type == corev1.ServiceTypeNodePort ||
		spec.Type == corev1.ServiceTypeLoadBalancer && (spec.AllocateLoadBalancerNodePorts == nil || *spec.AllocateLoadBalancerNodePorts)
}

// serviceColumns are kubectl's columns for Services.
func serviceColumns() []Column {
	doc := corev1.ServiceSpec{}.SwaggerDoc()
	return []Column{
		{Name: "Type", Type: "string", Description: doc["type"], Path: ".spec.type"},
		{Name: "Cluster-IP", Type: "string", Description: doc["clusterIP"], Value: serviceCell(func(s *corev1.Service) string {
			if len(s.Spec.ClusterIPs) > 0 {
				return s.Spec.ClusterIPs[0]
			}
			return "<none>"
		})},
		{Name: "External-IP", Type: "string", Description: doc["externalIPs"], Value: serviceCell(serviceExternalIP)},
		{Name: "Port(s)", Type: "string", Description: doc["ports"], Value: serviceCell(servicePorts)},
		{Name: "Age", Type: "string", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"], Path: ".metadata.creationTimestamp"},
		{Name: "Selector", Type: "string", Priority: 1, Description: doc["selector"], Value: serviceCell(func(s *corev1.Service) string {
			return labels.FormatLabels(s.Spec.Selector)
		})},
	}
}

// serviceCell computes a cell from the typed Service.
func serviceCell(f func(*corev1.Service) string) func(map[string]any) any {
	return func(obj map[string]any) any {
		spec, err := fromField[corev1.ServiceSpec](obj, "spec")
		if err != nil {
			return "<unknown>"
		}
		status, err := fromField[corev1.ServiceStatus](obj, "status")
		if err != nil {
			return "<unknown>"
		}
		return f(&corev1.Service{Spec: *spec, Status: *status})
	}
}

// serviceExternalIP is kubectl's External-IP cell.
func serviceExternalIP(s *corev1.Service) string {
	switch s.Spec.Type {
	case corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort:
		if len(s.Spec.ExternalIPs) > 0 {
			return strings.Join(s.Spec.ExternalIPs, ",")
		}
		return "<none>"
	case corev1.ServiceTypeLoadBalancer:
		var ips []string
		for _, in := range s.Status.LoadBalancer.Ingress {
			switch {
			case in.IP != "":
				ips = append(ips, in.IP)
			case in.Hostname != "":
				ips = append(ips, in.Hostname)
			}
		}
		ips = append(ips, s.Spec.ExternalIPs...)
		if len(ips) == 0 {
			return "<pending>"
		}
		return strings.Join(ips, ",")
	case corev1.ServiceTypeExternalName:
		return s.Spec.ExternalName
	}
	return "<unknown>"
}

// servicePorts is kubectl's Port(s) cell: port/protocol, with the node
// port after a colon.
func servicePorts(s *corev1.Service) string {
	if len(s.Spec.Ports) == 0 {
		return "<none>"
	}
	parts := make([]string, len(s.Spec.Ports))
	for i, p := range s.Spec.Ports {
		parts[i] = fmt.Sprintf("%d/%s", p.Port, p.Protocol)
		if p.NodePort > 0 {
			parts[i] = fmt.Sprintf("%d:%d/%s", p.Port, p.NodePort, p.Protocol)
		}
	}
	return strings.Join(parts, ",")
}
