package placement

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
)

func nodeAffinity(terms ...corev1.NodeSelectorTerm) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms},
		}}
	}
}

func expr(key string, op corev1.NodeSelectorOperator, values ...string) corev1.NodeSelectorTerm {
	return corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: op, Values: values}}}
}

func podAffinity(anti bool, topologyKey string, match map[string]string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		t := []corev1.PodAffinityTerm{{TopologyKey: topologyKey, LabelSelector: &metav1.LabelSelector{MatchLabels: match}}}
		if p.Spec.Affinity == nil {
			p.Spec.Affinity = &corev1.Affinity{}
		}
		if anti {
			p.Spec.Affinity.PodAntiAffinity = &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: t}
		} else {
			p.Spec.Affinity.PodAffinity = &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: t}
		}
	}
}

const (
	noVictims1 = " preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
	notHelp1   = " preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
)

func TestSchedule(t *testing.T) {
	three := []*corev1.Node{mkNode("n1"), mkNode("n2"), mkNode("n3")}
	never := corev1.PreemptNever
	tests := []struct {
		name    string
		nodes   []*corev1.Node
		placed  []placed
		pod     *corev1.Pod
		want    string // the node, or
		wantErr string // the whole message
	}{
		{name: "no nodes", pod: mkPod("p"), wantErr: "no nodes available to schedule pods"},
		{name: "one node", nodes: []*corev1.Node{mkNode("a")}, pod: mkPod("p"), want: "a"},
		{name: "ties go to the first name", nodes: []*corev1.Node{mkNode("b"), mkNode("a"), mkNode("c")}, pod: mkPod("p"), want: "a"},

		// NodeUnschedulable
		{name: "cordoned", nodes: []*corev1.Node{mkNode("a", cordoned)}, pod: mkPod("p"),
			wantErr: "0/1 nodes are available: 1 node(s) were unschedulable." + notHelp1},
		{name: "cordoned but tolerated", nodes: []*corev1.Node{mkNode("a", cordoned)},
			pod:  mkPod("p", tolerating(corev1.Toleration{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})),
			want: "a"},
		{name: "cordoned skipped", nodes: []*corev1.Node{mkNode("a", cordoned), mkNode("b")}, pod: mkPod("p"), want: "b"},

		// TaintToleration
		{name: "untolerated taint", nodes: []*corev1.Node{mkNode("a", withTaint("dedicated", "gpu", corev1.TaintEffectNoSchedule))}, pod: mkPod("p"),
			wantErr: "0/1 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}." + notHelp1},
		{name: "NoExecute taint filters", nodes: []*corev1.Node{mkNode("a", withTaint("k", "", corev1.TaintEffectNoExecute))}, pod: mkPod("p"),
			wantErr: "0/1 nodes are available: 1 node(s) had untolerated taint {k: }." + notHelp1},
		{name: "not-ready taint", nodes: []*corev1.Node{mkNode("a", withTaint(corev1.TaintNodeNotReady, "", corev1.TaintEffectNoSchedule))}, pod: mkPod("p"),
			wantErr: "0/1 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }." + notHelp1},
		{name: "PreferNoSchedule does not filter", nodes: []*corev1.Node{mkNode("a", withTaint("k", "v", corev1.TaintEffectPreferNoSchedule))}, pod: mkPod("p"), want: "a"},
		{name: "PreferNoSchedule scores lower", nodes: []*corev1.Node{mkNode("a", withTaint("k", "v", corev1.TaintEffectPreferNoSchedule)), mkNode("b")}, pod: mkPod("p"), want: "b"},
		{name: "tolerated by Equal", nodes: []*corev1.Node{mkNode("a", withTaint("k", "v", corev1.TaintEffectNoSchedule))},
			pod: mkPod("p", tolerating(corev1.Toleration{Key: "k", Value: "v"})), want: "a"},
		{name: "Equal with another value", nodes: []*corev1.Node{mkNode("a", withTaint("k", "v", corev1.TaintEffectNoSchedule))},
			pod:     mkPod("p", tolerating(corev1.Toleration{Key: "k", Value: "w"})),
			wantErr: "0/1 nodes are available: 1 node(s) had untolerated taint {k: v}." + notHelp1},
		{name: "Exists without key tolerates all", nodes: []*corev1.Node{mkNode("a", withTaint("k", "v", corev1.TaintEffectNoSchedule))},
			pod: mkPod("p", tolerating(corev1.Toleration{Operator: corev1.TolerationOpExists})), want: "a"},
		{name: "effect must match", nodes: []*corev1.Node{mkNode("a", withTaint("k", "v", corev1.TaintEffectNoSchedule))},
			pod:     mkPod("p", tolerating(corev1.Toleration{Key: "k", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute})),
			wantErr: "0/1 nodes are available: 1 node(s) had untolerated taint {k: v}." + notHelp1},

		// NodeAffinity
		{name: "nodeSelector", nodes: []*corev1.Node{mkNode("a"), mkNode("b", withLabel("disk", "ssd"))},
			pod: mkPod("p", func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"disk": "ssd"} }), want: "b"},
		{name: "nodeSelector nowhere", nodes: []*corev1.Node{mkNode("a"), mkNode("b")},
			pod:     mkPod("p", func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"disk": "ssd"} }),
			wantErr: "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."},
		{name: "In", nodes: []*corev1.Node{mkNode("a", withLabel("zone", "x")), mkNode("b", withLabel("zone", "y"))},
			pod: mkPod("p", nodeAffinity(expr("zone", corev1.NodeSelectorOpIn, "y", "z"))), want: "b"},
		{name: "NotIn matches a missing label", nodes: []*corev1.Node{mkNode("a", withLabel("zone", "x")), mkNode("b")},
			pod: mkPod("p", nodeAffinity(expr("zone", corev1.NodeSelectorOpNotIn, "x"))), want: "b"},
		{name: "Exists", nodes: []*corev1.Node{mkNode("a"), mkNode("b", withLabel("gpu", ""))},
			pod: mkPod("p", nodeAffinity(expr("gpu", corev1.NodeSelectorOpExists))), want: "b"},
		{name: "DoesNotExist", nodes: []*corev1.Node{mkNode("a", withLabel("gpu", "")), mkNode("b")},
			pod: mkPod("p", nodeAffinity(expr("gpu", corev1.NodeSelectorOpDoesNotExist))), want: "b"},
		{name: "Gt", nodes: []*corev1.Node{mkNode("a", withLabel("cores", "8")), mkNode("b", withLabel("cores", "32"))},
			pod: mkPod("p", nodeAffinity(expr("cores", corev1.NodeSelectorOpGt, "16"))), want: "b"},
		{name: "Lt", nodes: []*corev1.Node{mkNode("a", withLabel("cores", "32")), mkNode("b", withLabel("cores", "8"))},
			pod: mkPod("p", nodeAffinity(expr("cores", corev1.NodeSelectorOpLt, "16"))), want: "b"},
		{name: "Gt on a non-number", nodes: []*corev1.Node{mkNode("a", withLabel("cores", "many"))},
			pod:     mkPod("p", nodeAffinity(expr("cores", corev1.NodeSelectorOpGt, "1"))),
			wantErr: "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector." + notHelp1},
		{name: "terms are ORed", nodes: []*corev1.Node{mkNode("a"), mkNode("b", withLabel("zone", "y"))},
			pod: mkPod("p", nodeAffinity(expr("zone", corev1.NodeSelectorOpIn, "x"), expr("zone", corev1.NodeSelectorOpIn, "y"))), want: "b"},
		{name: "matchFields metadata.name", nodes: []*corev1.Node{mkNode("a"), mkNode("b")},
			pod:  mkPod("p", nodeAffinity(corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"b"}}}})),
			want: "b"},
		{name: "matchFields names a node that does not fit", nodes: []*corev1.Node{mkNode("a"), mkNode("b"), mkNode("c")},
			pod:     mkPod("p", requests("cpu", "5"), nodeAffinity(corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"b", "zz"}}}})),
			wantErr: "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]. preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling."},
		{name: "matchFields terms in conflict", nodes: []*corev1.Node{mkNode("a"), mkNode("b")},
			pod: mkPod("p", nodeAffinity(corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{
				{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}},
				{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"b"}}}})),
			wantErr: "0/2 nodes are available: pod affinity terms conflict. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."},
		{name: "an empty term matches nothing", nodes: []*corev1.Node{mkNode("a")},
			pod:     mkPod("p", nodeAffinity(corev1.NodeSelectorTerm{})),
			wantErr: "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector." + notHelp1},

		// NodePorts
		{name: "host port taken", nodes: []*corev1.Node{mkNode("a")}, placed: []placed{on("a", mkPod("q", hostPort(80, "", "")))},
			pod:     mkPod("p", hostPort(80, "", "")),
			wantErr: "0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports." + noVictims1},
		{name: "host port on another protocol", nodes: []*corev1.Node{mkNode("a")}, placed: []placed{on("a", mkPod("q", hostPort(53, "", corev1.ProtocolUDP)))},
			pod: mkPod("p", hostPort(53, "", "")), want: "a"},
		{name: "host port on other addresses", nodes: []*corev1.Node{mkNode("a")}, placed: []placed{on("a", mkPod("q", hostPort(80, "10.0.0.1", "")))},
			pod: mkPod("p", hostPort(80, "10.0.0.2", "")), want: "a"},
		{name: "host port on all addresses conflicts", nodes: []*corev1.Node{mkNode("a")}, placed: []placed{on("a", mkPod("q", hostPort(80, "10.0.0.1", "")))},
			pod:     mkPod("p", hostPort(80, "", "")),
			wantErr: "0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports." + noVictims1},

		{name: "a sidecar's host port", nodes: []*corev1.Node{mkNode("a")},
			placed: []placed{on("a", mkPod("q", func(p *corev1.Pod) {
				always := corev1.ContainerRestartPolicyAlways
				p.Spec.InitContainers = []corev1.Container{{Name: "proxy", RestartPolicy: &always, Ports: []corev1.ContainerPort{{ContainerPort: 15001, HostPort: 15001}}}}
			}))},
			pod:     mkPod("p", hostPort(15001, "", "")),
			wantErr: "0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports." + noVictims1},
		{name: "an init container's host port is free again", nodes: []*corev1.Node{mkNode("a")},
			placed: []placed{on("a", mkPod("q", func(p *corev1.Pod) {
				p.Spec.InitContainers = []corev1.Container{{Name: "setup", Ports: []corev1.ContainerPort{{ContainerPort: 15001, HostPort: 15001}}}}
			}))},
			pod: mkPod("p", hostPort(15001, "", "")), want: "a"},

		// NodeResourcesFit
		{name: "insufficient cpu", nodes: three, pod: mkPod("p", requests("cpu", "5")),
			wantErr: "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."},
		{name: "cpu and memory", nodes: []*corev1.Node{mkNode("a")}, pod: mkPod("p", requests("cpu", "5", "memory", "9Gi")),
			wantErr: "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory." + noVictims1},
		{name: "used by bound pods", nodes: []*corev1.Node{mkNode("a"), mkNode("b")},
			placed: []placed{on("a", mkPod("q", requests("cpu", "3")))}, pod: mkPod("p", requests("cpu", "2")), want: "b"},
		{name: "ephemeral storage", nodes: []*corev1.Node{mkNode("a")}, pod: mkPod("p", requests("ephemeral-storage", "200Gi")),
			wantErr: "0/1 nodes are available: 1 Insufficient ephemeral-storage." + noVictims1},
		{name: "extended resource", nodes: []*corev1.Node{mkNode("a"), mkNode("b", withAllocatable("example.com/gpu", "1"))},
			pod: mkPod("p", requests("example.com/gpu", "1")), want: "b"},
		{name: "extended resource nowhere", nodes: []*corev1.Node{mkNode("a")}, pod: mkPod("p", requests("example.com/gpu", "1")),
			wantErr: "0/1 nodes are available: 1 Insufficient example.com/gpu." + noVictims1},
		{name: "too many pods", nodes: []*corev1.Node{mkNode("a", withAllocatable("pods", "1"))}, placed: []placed{on("a", mkPod("q"))}, pod: mkPod("p"),
			wantErr: "0/1 nodes are available: 1 Too many pods." + noVictims1},
		{name: "least allocated wins", nodes: []*corev1.Node{mkNode("a"), mkNode("b")},
			placed: []placed{on("a", mkPod("q", requests("cpu", "1", "memory", "1Gi")))}, pod: mkPod("p", requests("cpu", "1", "memory", "1Gi")), want: "b"},
		{name: "lower priority victims would make room", nodes: []*corev1.Node{mkNode("a")},
			placed: []placed{on("a", mkPod("q", requests("cpu", "3"), priority(0)))}, pod: mkPod("p", requests("cpu", "2"), priority(100)),
			wantErr: "0/1 nodes are available: 1 Insufficient cpu."},
		{name: "victims would not make room", nodes: []*corev1.Node{mkNode("a")},
			placed: []placed{on("a", mkPod("q", requests("cpu", "1"), priority(0)))}, pod: mkPod("p", requests("cpu", "5"), priority(100)),
			wantErr: "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 Insufficient cpu."},
		{name: "preemptionPolicy Never", nodes: []*corev1.Node{mkNode("a")},
			pod:     mkPod("p", requests("cpu", "5"), func(p *corev1.Pod) { p.Spec.PreemptionPolicy = &never }),
			wantErr: "0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never."},

		// The mix of the example.
		{name: "taint and cpu", nodes: []*corev1.Node{mkNode("n1", withTaint("key", "value", corev1.TaintEffectNoSchedule)), mkNode("n2"), mkNode("n3")},
			pod:     mkPod("p", requests("cpu", "5")),
			wantErr: "0/3 nodes are available: 1 node(s) had untolerated taint {key: value}, 2 Insufficient cpu. preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod."},

		// InterPodAffinity
		{name: "affinity to a pod", nodes: three, placed: []placed{on("n2", mkPod("db", labelled("app", "db")))},
			pod: mkPod("p", podAffinity(false, corev1.LabelHostname, map[string]string{"app": "db"})), want: "n2"},
		{name: "affinity with no match anywhere", nodes: []*corev1.Node{mkNode("a")},
			pod:     mkPod("p", podAffinity(false, corev1.LabelHostname, map[string]string{"app": "db"})),
			wantErr: "0/1 nodes are available: 1 node(s) didn't match pod affinity rules." + notHelp1},
		{name: "affinity: the first of its group", nodes: []*corev1.Node{mkNode("a")},
			pod: mkPod("p", labelled("app", "web"), podAffinity(false, corev1.LabelHostname, map[string]string{"app": "web"})), want: "a"},
		{name: "affinity in another namespace does not count", nodes: []*corev1.Node{mkNode("a")},
			placed:  []placed{on("a", mkPod("db", labelled("app", "db"), func(p *corev1.Pod) { p.Namespace = "other" }))},
			pod:     mkPod("p", podAffinity(false, corev1.LabelHostname, map[string]string{"app": "db"})),
			wantErr: "0/1 nodes are available: 1 node(s) didn't match pod affinity rules." + notHelp1},
		{name: "anti-affinity", nodes: []*corev1.Node{mkNode("a"), mkNode("b")}, placed: []placed{on("a", mkPod("w1", labelled("app", "web")))},
			pod: mkPod("p", labelled("app", "web"), podAffinity(true, corev1.LabelHostname, map[string]string{"app": "web"})), want: "b"},
		{name: "anti-affinity everywhere", nodes: []*corev1.Node{mkNode("a")}, placed: []placed{on("a", mkPod("w1", labelled("app", "web")))},
			pod:     mkPod("p", labelled("app", "web"), podAffinity(true, corev1.LabelHostname, map[string]string{"app": "web"})),
			wantErr: "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules." + noVictims1},
		{name: "existing pod's anti-affinity", nodes: []*corev1.Node{mkNode("a"), mkNode("b")},
			placed: []placed{on("a", mkPod("w1", podAffinity(true, corev1.LabelHostname, map[string]string{"app": "web"})))},
			pod:    mkPod("p", labelled("app", "web")), want: "b"},
		{name: "existing pod's anti-affinity everywhere", nodes: []*corev1.Node{mkNode("a")},
			placed:  []placed{on("a", mkPod("w1", podAffinity(true, corev1.LabelHostname, map[string]string{"app": "web"})))},
			pod:     mkPod("p", labelled("app", "web")),
			wantErr: "0/1 nodes are available: 1 node(s) didn't satisfy existing pods anti-affinity rules." + noVictims1},
		{name: "anti-affinity on zones", nodes: []*corev1.Node{mkNode("a", withLabel("zone", "x")), mkNode("b", withLabel("zone", "x")), mkNode("c", withLabel("zone", "y"))},
			placed: []placed{on("a", mkPod("w1", labelled("app", "web")))},
			pod:    mkPod("p", podAffinity(true, "zone", map[string]string{"app": "web"})), want: "c"},

		// PodTopologySpread (DoNotSchedule constraints)
		{name: "spread: the emptier zone", nodes: zoned(), placed: []placed{on("a", mkPod("w1", labelled("app", "web")))},
			pod: mkPod("p", labelled("app", "web"), spread("zone", 1, nil)), want: "c"},
		{name: "spread: skew within maxSkew", nodes: zoned(), placed: []placed{on("a", mkPod("w1", labelled("app", "web")))},
			pod: mkPod("p", labelled("app", "web"), spread("zone", 2, nil), requests("cpu", "3")), want: "b"},
		{name: "spread: no room in the emptier zone", nodes: zoned(),
			placed:  []placed{on("a", mkPod("w1", labelled("app", "web"))), on("c", mkPod("big", requests("cpu", "4")))},
			pod:     mkPod("p", labelled("app", "web"), spread("zone", 1, nil), requests("cpu", "1")),
			wantErr: "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match pod topology spread constraints. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."},
		{name: "spread: a node without the key", nodes: []*corev1.Node{mkNode("a")},
			pod:     mkPod("p", labelled("app", "web"), spread("zone", 1, nil)),
			wantErr: "0/1 nodes are available: 1 node(s) didn't match pod topology spread constraints (missing required label)." + notHelp1},
		{name: "spread: minDomains above the domains makes the minimum 0", nodes: zoned()[:2],
			placed:  []placed{on("a", mkPod("w1", labelled("app", "web")))},
			pod:     mkPod("p", labelled("app", "web"), spread("zone", 1, ptrTo[int32](2))),
			wantErr: "0/2 nodes are available: 2 node(s) didn't match pod topology spread constraints. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod."},

		// InterPodAffinity scores (preferred terms)
		{name: "preferred affinity", nodes: three, placed: []placed{on("n3", mkPod("db", labelled("app", "db")))},
			pod: mkPod("p", preferred(false, 10, map[string]string{"app": "db"})), want: "n3"},
		// b is fuller, so only the anti-affinity sends the pod there.
		{name: "preferred anti-affinity", nodes: []*corev1.Node{mkNode("a"), mkNode("b")},
			placed: []placed{on("a", mkPod("w1", labelled("app", "web"))), on("b", mkPod("x", requests("cpu", "1")))},
			pod:    mkPod("p", labelled("app", "web"), preferred(true, 100, map[string]string{"app": "web"})), want: "b"},
		{name: "an existing pod's preferred anti-affinity", nodes: []*corev1.Node{mkNode("a"), mkNode("b")},
			placed: []placed{on("a", mkPod("w1", preferred(true, 100, map[string]string{"app": "web"}))), on("b", mkPod("x", requests("cpu", "1")))},
			pod:    mkPod("p", labelled("app", "web")), want: "b"},
		{name: "an existing pod's required affinity draws", nodes: []*corev1.Node{mkNode("a"), mkNode("b")},
			placed: []placed{on("b", mkPod("w1", podAffinity(false, corev1.LabelHostname, map[string]string{"app": "web"})))},
			pod:    mkPod("p", labelled("app", "web")), want: "b"},

		// Filters stop at the first failure, in kube's order.
		{name: "first failure only", nodes: []*corev1.Node{mkNode("a", cordoned, withTaint("k", "v", corev1.TaintEffectNoSchedule))},
			pod:     mkPod("p", requests("cpu", "5")),
			wantErr: "0/1 nodes are available: 1 node(s) were unschedulable." + notHelp1},

		// Spread: fewer pods of the same owner.
		{name: "spread by owner", nodes: []*corev1.Node{mkNode("a"), mkNode("b")},
			placed: []placed{on("a", mkPod("r1", ownedBy("rs1"))), on("b", mkPod("x1")), on("b", mkPod("x2"))},
			pod:    mkPod("r2", ownedBy("rs1")), want: "b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Schedule(tt.pod, snapshot(tt.nodes, tt.placed...))
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("got %q (node %q)\nwant %q", errString(err), d.Node, tt.wantErr)
				}
				return
			}
			if err != nil || d.Node != tt.want {
				t.Fatalf("got node %q, error %v; want node %q", d.Node, err, tt.want)
			}
		})
	}
}

func ownedBy(uid string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		yes := true
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: uid, UID: k8stypes.UID("uid-" + uid), Controller: &yes}}
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

func TestScheduleErrors(t *testing.T) {
	_, err := Schedule(mkPod("p"), &Snapshot{})
	if !errors.Is(err, ErrNoNodes) {
		t.Errorf("empty cluster: got %v, want ErrNoNodes", err)
	}
	_, err = Schedule(mkPod("p", requests("cpu", "9")), snapshot([]*corev1.Node{mkNode("a")}))
	var fe *FitError
	if !errors.As(err, &fe) || fe.NumAllNodes != 1 || fe.Statuses["a"] == nil || fe.Statuses["a"].Code != Unschedulable {
		t.Errorf("no fit: got %#v, want a FitError with node a Unschedulable", err)
	}
}

// zoned is three nodes: a and b in zone x, c in zone y.
func zoned() []*corev1.Node {
	return []*corev1.Node{mkNode("a", withLabel("zone", "x")), mkNode("b", withLabel("zone", "x")), mkNode("c", withLabel("zone", "y"))}
}

func spread(key string, maxSkew int32, minDomains *int32) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.TopologySpreadConstraints = append(p.Spec.TopologySpreadConstraints, corev1.TopologySpreadConstraint{
			MaxSkew: maxSkew, TopologyKey: key, WhenUnsatisfiable: corev1.DoNotSchedule, MinDomains: minDomains,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		})
	}
}

func ptrTo[T any](v T) *T { return &v }

func preferred(anti bool, weight int32, match map[string]string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		t := []corev1.WeightedPodAffinityTerm{{Weight: weight, PodAffinityTerm: corev1.PodAffinityTerm{
			TopologyKey: corev1.LabelHostname, LabelSelector: &metav1.LabelSelector{MatchLabels: match}}}}
		if p.Spec.Affinity == nil {
			p.Spec.Affinity = &corev1.Affinity{}
		}
		if anti {
			p.Spec.Affinity.PodAntiAffinity = &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: t}
		} else {
			p.Spec.Affinity.PodAffinity = &corev1.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: t}
		}
	}
}
