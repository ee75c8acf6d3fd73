package daemonset

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

var t0 = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

// newDS is a DaemonSet of generation 3 (template generation 2); opts
// shape it.
func newDS(opts ...func(*appsv1.DaemonSet)) *appsv1.DaemonSet {
	one := intstr.FromInt32(1)
	zero := intstr.FromInt32(0)
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "agent", UID: "ds-uid", Generation: 3,
			Annotations: map[string]string{appsv1.DeprecatedTemplateGeneration: "2"}},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "agent"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "agent:1"}}},
			},
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &one, MaxSurge: &zero}},
		},
	}
	for _, o := range opts {
		o(ds)
	}
	return ds
}

func rolling(maxUnavailable, maxSurge string) func(*appsv1.DaemonSet) {
	return func(ds *appsv1.DaemonSet) {
		u, s := intstr.Parse(maxUnavailable), intstr.Parse(maxSurge)
		ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &u, MaxSurge: &s}}
	}
}

func minReady(s int32) func(*appsv1.DaemonSet) {
	return func(ds *appsv1.DaemonSet) { ds.Spec.MinReadySeconds = s }
}

func selecting(sel map[string]string) func(*appsv1.DaemonSet) {
	return func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.NodeSelector = sel }
}

// node is a node named name; opts shape it.
func node(name string, opts ...func(*corev1.Node)) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}}}
	for _, o := range opts {
		o(n)
	}
	return n
}

func labelledNode(k, v string) func(*corev1.Node) {
	return func(n *corev1.Node) { n.Labels[k] = v }
}

func tainted(key string, effect corev1.TaintEffect) func(*corev1.Node) {
	return func(n *corev1.Node) { n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: key, Effect: effect}) }
}

func nodes(names ...string) []*corev1.Node {
	out := make([]*corev1.Node, len(names))
	for i, n := range names {
		out[i] = node(n)
	}
	return out
}

const curHash = "newhash"

// pod is a running, ready daemon pod of the current template named
// name on node, created an hour before t0; opts shape it.
func pod(name, nodeName string, opts ...func(*corev1.Pod)) *corev1.Pod {
	t := true
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(name + "-uid"),
			Labels:            map[string]string{"app": "agent", appsv1.DefaultDaemonSetUniqueLabelKey: curHash},
			CreationTimestamp: metav1.NewTime(t0.Add(-time.Hour)),
			OwnerReferences:   []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "agent", UID: "ds-uid", Controller: &t}}},
		Spec: corev1.PodSpec{NodeName: nodeName},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{
			{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0.Add(-time.Hour))}}},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func old(p *corev1.Pod) { p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = "oldhash" }

func notReady(p *corev1.Pod) { p.Status.Conditions[0].Status = corev1.ConditionFalse }

func readyAt(t time.Time) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Status.Conditions[0].LastTransitionTime = metav1.NewTime(t) }
}

func phase(ph corev1.PodPhase) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Status.Phase = ph }
}

func createdAt(t time.Time) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.CreationTimestamp = metav1.NewTime(t) }
}

func deleting(p *corev1.Pod) {
	ts := metav1.NewTime(t0)
	p.DeletionTimestamp = &ts
}

// pinned leaves the pod unscheduled, aimed at its node by affinity.
func pinned(p *corev1.Pod) {
	p.Spec.Affinity = NodeAffinityFor(nil, p.Spec.NodeName)
	p.Spec.NodeName = ""
}

func byNode(pods ...*corev1.Pod) PodsByNode { return GroupByNode(pods) }

func podNames(pods []*corev1.Pod) []string {
	out := []string{}
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return out
}
