package daemonset

import (
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

func TestShouldRun(t *testing.T) {
	secs := int64(300)
	tests := []struct {
		name string
		ds   *appsv1.DaemonSet
		node *corev1.Node
		want Fit
	}{
		{"plain node", newDS(), node("n1"), Fit{Run: true, Keep: true}},
		{"nodeSelector matches", newDS(selecting(map[string]string{"disk": "ssd"})), node("n1", labelledNode("disk", "ssd")), Fit{Run: true, Keep: true}},
		{"nodeSelector excludes", newDS(selecting(map[string]string{"disk": "ssd"})), node("n1", labelledNode("disk", "hdd")), Fit{}},
		{"required affinity excludes", newDS(func(ds *appsv1.DaemonSet) {
			ds.Spec.Template.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}}}}}}}}
		}), node("n1", labelledNode("zone", "b")), Fit{}},
		{"required affinity matches", newDS(func(ds *appsv1.DaemonSet) {
			ds.Spec.Template.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}}}}}}}}
		}), node("n1", labelledNode("zone", "a")), Fit{Run: true, Keep: true}},
		{"template nodeName elsewhere", newDS(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.NodeName = "n2" }), node("n1"), Fit{}},
		{"template nodeName here", newDS(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.NodeName = "n1" }), node("n1"), Fit{Run: true, Keep: true}},
		{"untolerated NoSchedule keeps a running pod", newDS(), node("n1", tainted("dedicated", corev1.TaintEffectNoSchedule)), Fit{Keep: true}},
		{"untolerated NoExecute evicts", newDS(), node("n1", tainted("dedicated", corev1.TaintEffectNoExecute)), Fit{}},
		{"PreferNoSchedule ignored", newDS(), node("n1", tainted("dedicated", corev1.TaintEffectPreferNoSchedule)), Fit{Run: true, Keep: true}},
		{"tolerated taint", newDS(func(ds *appsv1.DaemonSet) {
			ds.Spec.Template.Spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists}}
		}), node("n1", tainted("dedicated", corev1.TaintEffectNoExecute)), Fit{Run: true, Keep: true}},
		{"not-ready tolerated for ever", newDS(), node("n1", tainted(corev1.TaintNodeNotReady, corev1.TaintEffectNoExecute)), Fit{Run: true, Keep: true}},
		{"unreachable tolerated", newDS(), node("n1", tainted(corev1.TaintNodeUnreachable, corev1.TaintEffectNoExecute)), Fit{Run: true, Keep: true}},
		{"cordoned node still runs daemons", newDS(), node("n1", tainted(corev1.TaintNodeUnschedulable, corev1.TaintEffectNoSchedule)), Fit{Run: true, Keep: true}},
		{"pressure tolerated", newDS(), node("n1", tainted(corev1.TaintNodeDiskPressure, corev1.TaintEffectNoSchedule),
			tainted(corev1.TaintNodeMemoryPressure, corev1.TaintEffectNoSchedule), tainted(corev1.TaintNodePIDPressure, corev1.TaintEffectNoSchedule)), Fit{Run: true, Keep: true}},
		{"network unavailable blocks pod network", newDS(), node("n1", tainted(corev1.TaintNodeNetworkUnavailable, corev1.TaintEffectNoSchedule)), Fit{Keep: true}},
		{"network unavailable tolerated on host network", newDS(func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.HostNetwork = true }),
			node("n1", tainted(corev1.TaintNodeNetworkUnavailable, corev1.TaintEffectNoSchedule)), Fit{Run: true, Keep: true}},
		{"not-ready toleration with seconds made permanent", newDS(func(ds *appsv1.DaemonSet) {
			ds.Spec.Template.Spec.Tolerations = []corev1.Toleration{{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &secs}}
		}), node("n1", tainted(corev1.TaintNodeNotReady, corev1.TaintEffectNoExecute)), Fit{Run: true, Keep: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ShouldRun(tt.node, tt.ds); got != tt.want {
				t.Errorf("ShouldRun = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestDaemonTolerations(t *testing.T) {
	secs := int64(300)
	base := []corev1.Toleration{
		{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
		{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
		{Key: corev1.TaintNodeDiskPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: corev1.TaintNodeMemoryPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: corev1.TaintNodePIDPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	}
	own := corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "x", Effect: corev1.TaintEffectNoSchedule}
	network := corev1.Toleration{Key: corev1.TaintNodeNetworkUnavailable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	tests := []struct {
		name string
		spec corev1.PodSpec
		want []corev1.Toleration
	}{
		{"none of its own", corev1.PodSpec{}, base},
		{"its own first", corev1.PodSpec{Tolerations: []corev1.Toleration{own}}, append([]corev1.Toleration{own}, base...)},
		{"host network", corev1.PodSpec{HostNetwork: true}, append(append([]corev1.Toleration(nil), base...), network)},
		{"seconds dropped in place", corev1.PodSpec{Tolerations: []corev1.Toleration{own,
			{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &secs}}},
			append([]corev1.Toleration{own, base[1], base[0]}, base[2:]...)},
		{"Equal operator is another toleration", corev1.PodSpec{Tolerations: []corev1.Toleration{
			{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpEqual, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &secs}}},
			append([]corev1.Toleration{{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpEqual, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &secs}}, base...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DaemonTolerations(&tt.spec); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("DaemonTolerations =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}
