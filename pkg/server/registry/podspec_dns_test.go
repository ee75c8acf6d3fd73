package registry

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

const (
	dns1123LabelMsg     = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
	dns1123SubdomainMsg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)

func dnsConfig(policy corev1.DNSPolicy, c *corev1.PodDNSConfig) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.DNSPolicy = policy
		p.Spec.DNSConfig = c
	}
}

var dnsCases = []podCase{
	{"valid names and config", func(p *corev1.Pod) {
		p.Spec.DNSPolicy = corev1.DNSNone
		p.Spec.DNSConfig = &corev1.PodDNSConfig{Nameservers: []string{"10.0.0.10", "fd00::10"}, Searches: []string{"svc.cluster.local.", "_srv.example.com", "."},
			Options: []corev1.PodDNSConfigOption{{Name: "ndots", Value: ptr.To("2")}}}
		p.Spec.Hostname, p.Spec.Subdomain = "web-0", "web"
		p.Spec.HostAliases = []corev1.HostAlias{{IP: "127.0.0.1", Hostnames: []string{"foo.local", "bar"}}}
		p.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "regcred"}}
		p.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: "example.com/ready"}}
		p.Spec.PriorityClassName = "high"
		p.Spec.Overhead = corev1.ResourceList{"cpu": resource.MustParse("250m")}
	}, nil},
	{"None without config", dnsConfig(corev1.DNSNone, nil), []string{
		"Required value spec.dnsConfig: must provide `dnsConfig` when `dnsPolicy` is None",
	}},
	{"None without nameservers", dnsConfig(corev1.DNSNone, &corev1.PodDNSConfig{Searches: []string{"Bad_Domain"}}), []string{
		"Required value spec.dnsConfig.nameservers: must provide at least one DNS nameserver when `dnsPolicy` is None",
	}},
	{"nameservers", dnsConfig(corev1.DNSClusterFirst, &corev1.PodDNSConfig{Nameservers: []string{"1.1.1.1", "8.8.8.8", "9.9.9.9", "dns.google"}}), []string{
		"Invalid value spec.dnsConfig.nameservers: must not have more than 3 nameservers",
		"Invalid value spec.dnsConfig.nameservers[3]: must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
	}},
	{"searches", func(p *corev1.Pod) {
		many := make([]string, 33)
		for i := range many {
			many[i] = "a"
		}
		many[0] = strings.Repeat("b", 64) + ".com"
		many[1] = "Upper.example.com"
		many = append(many, strings.Repeat("c.", 1000))
		dnsConfig(corev1.DNSDefault, &corev1.PodDNSConfig{Searches: many, Options: []corev1.PodDNSConfigOption{{Value: ptr.To("1")}}})(p)
	}, []string{
		"Invalid value spec.dnsConfig.searches: must not have more than 32 search paths",
		"Invalid value spec.dnsConfig.searches: must not have more than 2048 characters (including spaces) in the search list",
		// kube does not limit a search domain's labels to 63 characters.
		"Invalid value spec.dnsConfig.searches[1]: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
		"Invalid value spec.dnsConfig.searches[33]: must be no more than 253 characters",
		"Required value spec.dnsConfig.options[0]: must not be empty",
	}},
	{"hostname and subdomain", func(p *corev1.Pod) { p.Spec.Hostname, p.Spec.Subdomain = "web.0", "Web" }, []string{
		"Invalid value spec.hostname: must not contain dots",
		"Invalid value spec.subdomain: " + dns1123LabelMsg,
	}},
	{"host aliases", func(p *corev1.Pod) {
		p.Spec.HostAliases = []corev1.HostAlias{{IP: "", Hostnames: []string{"ok"}}, {IP: "300.0.0.1", Hostnames: []string{"Not_OK"}}}
	}, []string{
		"Invalid value spec.hostAliases[0].ip: must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
		"Invalid value spec.hostAliases[1].ip: must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
		"Invalid value spec.hostAliases[1].hostnames[0]: " + dns1123SubdomainMsg,
	}},
	{"readiness and scheduling gates", func(p *corev1.Pod) {
		p.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: "bad gate"}}
		p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/wait"}, {Name: "example.com/wait"}}
	}, []string{
		"Invalid value spec.readinessGates[0].conditionType: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
		"Duplicate value spec.schedulingGates[1]: ",
	}},
	{"overhead", func(p *corev1.Pod) {
		p.Spec.Overhead = corev1.ResourceList{"cpu": resource.MustParse("-1"), "pods": resource.MustParse("1")}
	}, []string{
		"Invalid value spec.overhead.limits[cpu]: must be greater than or equal to 0",
		"Invalid value spec.overhead.limits[pods]: must be a standard resource for containers",
	}},
	{"host network ports", func(p *corev1.Pod) {
		p.Spec.HostNetwork = true
		p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 80}, {ContainerPort: 81, HostPort: 8081}}
	}, []string{"Invalid value spec.containers[0].ports[1].hostPort: must match `containerPort` when `hostNetwork` is true"}},
}

func TestPodDNSAndNamesValidation(t *testing.T) { runPodCases(t, dnsCases) }

// TestPodTemplateClassNames checks the class names of a template: a
// Pod's unknown class is refused by admission (403) before validation,
// a template's only by validation (422). Recorded from kube-apiserver
// v1.33.13 with a PodTemplate.
func TestPodTemplateClassNames(t *testing.T) {
	tmpl := corev1.PodTemplateSpec{Spec: basicPod().Spec}
	tmpl.Spec.PriorityClassName = "High"
	tmpl.Spec.RuntimeClassName = ptr.To("gVisor")
	defaultPodSpec(&tmpl.Spec)
	got := describeErrors(podTemplateSpecErrors(&tmpl, field.NewPath("template")))
	want := []string{
		"Invalid value template.spec.priorityClassName: " + dns1123SubdomainMsg,
		"Invalid value template.spec.runtimeClassName: " + dns1123SubdomainMsg,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}
