package placement

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// mkNode is a node with 4 cpu, 8Gi memory, 100Gi ephemeral storage and
// room for 110 pods, changed by opts.
func mkNode(name string, opts ...func(*corev1.Node)) *corev1.Node {
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelHostname: name}},
		Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{
			corev1.ResourceCPU:              resource.MustParse("4"),
			corev1.ResourceMemory:           resource.MustParse("8Gi"),
			corev1.ResourceEphemeralStorage: resource.MustParse("100Gi"),
			corev1.ResourcePods:             resource.MustParse("110"),
		}},
	}
	for _, o := range opts {
		o(n)
	}
	return n
}

func withTaint(key, value string, effect corev1.TaintEffect) func(*corev1.Node) {
	return func(n *corev1.Node) {
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: key, Value: value, Effect: effect})
	}
}

func withLabel(key, value string) func(*corev1.Node) {
	return func(n *corev1.Node) { n.Labels[key] = value }
}

func withAllocatable(name corev1.ResourceName, q string) func(*corev1.Node) {
	return func(n *corev1.Node) { n.Status.Allocatable[name] = resource.MustParse(q) }
}

func cordoned(n *corev1.Node) { n.Spec.Unschedulable = true }

var podSeq int

// mkPod is a pod in namespace default with one container, changed by
// opts.
func mkPod(name string, opts ...func(*corev1.Pod)) *corev1.Pod {
	podSeq++
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID(fmt.Sprintf("uid-%s-%d", name, podSeq))},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func requests(kv ...string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		rl := corev1.ResourceList{}
		for i := 0; i+1 < len(kv); i += 2 {
			rl[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
		}
		p.Spec.Containers[0].Resources.Requests = rl
	}
}

func labelled(kv ...string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		for i := 0; i+1 < len(kv); i += 2 {
			p.Labels[kv[i]] = kv[i+1]
		}
	}
}

func tolerating(t corev1.Toleration) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Spec.Tolerations = append(p.Spec.Tolerations, t) }
}

func hostPort(port int32, ip string, proto corev1.Protocol) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Containers[0].Ports = append(p.Spec.Containers[0].Ports, corev1.ContainerPort{ContainerPort: port, HostPort: port, HostIP: ip, Protocol: proto})
	}
}

func priority(v int32) func(*corev1.Pod) { return func(p *corev1.Pod) { p.Spec.Priority = &v } }

// placed is a pod bound to a node.
type placed struct {
	node string
	pod  *corev1.Pod
}

// snapshot builds the nodes with the placed pods on them.
func snapshot(nodes []*corev1.Node, pods ...placed) *Snapshot {
	s := &Snapshot{}
	byName := map[string]*NodeInfo{}
	for _, n := range nodes {
		ni := NewNodeInfo(n)
		byName[n.Name] = ni
		s.Nodes = append(s.Nodes, ni)
	}
	for _, p := range pods {
		p.pod.Spec.NodeName = p.node
		byName[p.node].AddPod(NewPodInfo(p.pod))
	}
	return s
}

func on(node string, pod *corev1.Pod) placed { return placed{node, pod} }
