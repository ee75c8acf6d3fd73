//lint:file-ignore SA1019 core/v1 Endpoints are deprecated but kept up to date, as kube 1.33 keeps them

package endpoints

import (
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func pod(name, ip string, ready bool, mutate ...func(*corev1.Pod)) *corev1.Pod {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: "uid-" + "name"},
		Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "c", Ports: []corev1.ContainerPort{
			{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP},
		}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: ip, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}},
	}
	for _, m := range mutate {
		m(p)
	}
	return p
}

// summary renders groups as "ports: addr(ready,serving,terminating) ..." per group.
func summary(groups []group) string {
	out := []string{}
	for _, g := range groups {
		s := portsKey(g.ports) + ":"
		for _, ep := range g.endpoints {
			flag := func(b *bool) string {
				if *b {
					return "1"
				}
				return "0"
			}
			c := ep.Conditions
			s += " " + ep.Addresses[0] + "(" + flag(c.Ready) + flag(c.Serving) + flag(c.Terminating) + ")"
		}
		out = append(out, s)
	}
	b, _ := json.Marshal(out)
	return string(b)
}

func TestDesired(t *testing.T) {
	byNumber := corev1.ServicePort{Name: "web", Port: 80, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(8080)}
	byName := corev1.ServicePort{Name: "web", Port: 80, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromString("http")}
	now := metav1.Now()
	tests := []struct {
		name    string
		ports   []corev1.ServicePort
		publish bool
		pods    []*corev1.Pod
		want    string
	}{
		{"ready and not ready", []corev1.ServicePort{byNumber}, false,
			[]*corev1.Pod{pod("b", "10.0.0.2", false), pod("a", "10.0.0.1", true)},
			`["web/TCP/8080: 10.0.0.1(110) 10.0.0.2(000)"]`},
		{"no IP yet, ended pods", []corev1.ServicePort{byNumber}, false,
			[]*corev1.Pod{pod("a", "", true), pod("b", "10.0.0.2", true, func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded })},
			`[]`},
		{"terminating stays serving, never ready", []corev1.ServicePort{byNumber}, false,
			[]*corev1.Pod{pod("a", "10.0.0.1", true, func(p *corev1.Pod) { p.DeletionTimestamp = &now })},
			`["web/TCP/8080: 10.0.0.1(011)"]`},
		{"publish not ready addresses", []corev1.ServicePort{byNumber}, true,
			[]*corev1.Pod{pod("a", "10.0.0.1", false)},
			`["web/TCP/8080: 10.0.0.1(110)"]`},
		// A pod without the named port is an endpoint without that port,
		// as kube's controller resolves ports one by one.
		{"named target port splits groups", []corev1.ServicePort{byName}, false,
			[]*corev1.Pod{pod("a", "10.0.0.1", true), pod("b", "10.0.0.2", true, func(p *corev1.Pod) {
				p.Spec.Containers[0].Ports[0].ContainerPort = 9090
			}), pod("c", "10.0.0.3", true, func(p *corev1.Pod) { p.Spec.Containers[0].Ports = nil })},
			`[": 10.0.0.3(110)","web/TCP/8080: 10.0.0.1(110)","web/TCP/9090: 10.0.0.2(110)"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := &corev1.Service{Spec: corev1.ServiceSpec{Ports: tt.ports, PublishNotReadyAddresses: tt.publish}}
			if got := summary(desired(svc, tt.pods)); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestSubsets(t *testing.T) {
	now := metav1.Now()
	svc := &corev1.Service{Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "web", Port: 80, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(8080)}}}}
	got := subsets(desired(svc, []*corev1.Pod{
		pod("a", "10.0.0.1", true), pod("b", "10.0.0.2", false),
		pod("c", "10.0.0.3", true, func(p *corev1.Pod) { p.DeletionTimestamp = &now }),
	}))
	if len(got) != 1 || len(got[0].Addresses) != 1 || got[0].Addresses[0].IP != "10.0.0.1" ||
		len(got[0].NotReadyAddresses) != 1 || got[0].NotReadyAddresses[0].IP != "10.0.0.2" ||
		len(got[0].Ports) != 1 || got[0].Ports[0].Port != 8080 {
		b, _ := json.Marshal(got)
		t.Errorf("subsets %s: want 10.0.0.1 ready, 10.0.0.2 not ready, the terminating pod left out, port 8080", b)
	}
}
