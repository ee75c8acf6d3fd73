package registry

import (
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestNodeCells(t *testing.T) {
	cond := func(s corev1.ConditionStatus) []corev1.NodeCondition {
		return []corev1.NodeCondition{{Type: corev1.NodeMemoryPressure, Status: "False"}, {Type: corev1.NodeReady, Status: s}}
	}
	tests := []struct {
		name string
		node corev1.Node
		want []any // Status, Roles, Version, Internal-IP, External-IP, OS-Image, Kernel-Version, Container-Runtime
	}{
		{"ready worker", corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"node-role.kubernetes.io/worker": "", "node-role.kubernetes.io/infra": "", "node-role.kubernetes.io/": "x"}},
			Status: corev1.NodeStatus{Conditions: cond("True"),
				Addresses: []corev1.NodeAddress{{Type: corev1.NodeHostName, Address: "h"}, {Type: corev1.NodeInternalIP, Address: "10.0.0.1"}},
				NodeInfo:  corev1.NodeSystemInfo{KubeletVersion: "v1.33.0", OSImage: "Ubuntu", KernelVersion: "6.1", ContainerRuntimeVersion: "containerd://2.0"}},
		}, []any{"Ready", "infra,worker", "v1.33.0", "10.0.0.1", "<none>", "Ubuntu", "6.1", "containerd://2.0"}},
		{"not ready, cordoned, legacy role label", corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"kubernetes.io/role": "master"}},
			Spec:       corev1.NodeSpec{Unschedulable: true},
			Status:     corev1.NodeStatus{Conditions: cond("False"), Addresses: []corev1.NodeAddress{{Type: corev1.NodeExternalIP, Address: "1.2.3.4"}}},
		}, []any{"NotReady,SchedulingDisabled", "master", "", "<none>", "1.2.3.4", "<unknown>", "<unknown>", "<unknown>"}},
		{"no Ready condition", corev1.Node{}, []any{"Unknown", "<none>", "", "<none>", "<none>", "<unknown>", "<unknown>", "<unknown>"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := asDecoded(t, &tt.node)
			var got []any
			for _, c := range builtin("", "nodes").Columns {
				if v, ok := c.Cell(obj, time.Time{}); ok {
					got = append(got, v)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNodeCreate(t *testing.T) {
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "n1"},
		Status:     corev1.NodeStatus{Capacity: corev1.ResourceList{"cpu": resource.MustParse("4"), "pods": resource.MustParse("110")}},
	}
	obj := asDecoded(t, node)
	if errs := (nodeStrategy{}).PrepareForCreate(time.Time{}, obj); errs != nil {
		t.Fatal(errs)
	}
	got := nestedMap(obj, false, "status")["allocatable"]
	want := map[string]any{"cpu": "4", "pods": "110"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("allocatable: got %v, want %v", got, want)
	}
	taints := nestedMap(obj, false, "spec")["taints"]
	wantTaints := []any{map[string]any{"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}}
	if !reflect.DeepEqual(taints, wantTaints) {
		t.Errorf("taints: got %v, want %v", taints, wantTaints)
	}
	if !(&Resource{Strategy: nodeStrategy{}}).KeepsStatusOnCreate() {
		t.Error("a node create must keep its status")
	}
}

func TestNodeValidation(t *testing.T) {
	tests := []struct {
		name      string
		old, node corev1.Node
		want      []string
	}{
		{name: "taint effect", node: corev1.Node{Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: "k", Effect: "Sometimes"}}}},
			want: []string{`Unsupported value metadata.taints[0].effect: supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`}},
		{name: "taint without effect", node: corev1.Node{Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: "k"}}}},
			want: []string{"Required value metadata.taints[0].effect: "}},
		{name: "duplicate taint", node: corev1.Node{Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: "k", Effect: "NoSchedule"}, {Key: "k", Value: "v", Effect: "NoSchedule"}}}},
			want: []string{"Duplicate value metadata.taints[1]: taints must be unique by key and effect pair"}},
		{name: "two CIDRs of one family", node: corev1.Node{Spec: corev1.NodeSpec{PodCIDRs: []string{"10.0.0.0/24", "10.0.1.0/24"}}},
			want: []string{"Invalid value spec.podCIDRs: may specify no more than one CIDR for each IP family"}},
		{name: "podCIDR set once", old: corev1.Node{Spec: corev1.NodeSpec{PodCIDR: "10.0.0.0/24", PodCIDRs: []string{"10.0.0.0/24"}}},
			node: corev1.Node{Spec: corev1.NodeSpec{PodCIDR: "10.0.9.0/24", PodCIDRs: []string{"10.0.9.0/24"}}},
			want: []string{`Forbidden spec.podCIDRs: node updates may not change podCIDR except from "" to valid`}},
		{name: "podCIDR from empty", old: corev1.Node{},
			node: corev1.Node{Spec: corev1.NodeSpec{PodCIDR: "10.0.9.0/24", PodCIDRs: []string{"10.0.9.0/24"}}}},
		{name: "providerID", old: corev1.Node{Spec: corev1.NodeSpec{ProviderID: "a"}}, node: corev1.Node{Spec: corev1.NodeSpec{ProviderID: "b"}},
			want: []string{`Forbidden spec.providerID: node updates may not change providerID except from "" to valid`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := asDecoded(t, &tt.node)
			var errs []string
			if tt.old.Spec.PodCIDR != "" || tt.old.Spec.ProviderID != "" || tt.name == "podCIDR from empty" {
				errs = describeErrors(nodeStrategy{}.PrepareForUpdate(time.Time{}, obj, asDecoded(t, &tt.old)))
			} else {
				errs = describeErrors(nodeStrategy{}.PrepareForCreate(time.Time{}, obj))
			}
			if !reflect.DeepEqual(errs, tt.want) {
				t.Errorf("got %q, want %q", errs, tt.want)
			}
		})
	}
}

func TestNodeStatusUpdateKeepsSpec(t *testing.T) {
	old := &corev1.Node{Spec: corev1.NodeSpec{Unschedulable: true}}
	next := &corev1.Node{Status: corev1.NodeStatus{Phase: "Running"}}
	obj := asDecoded(t, next)
	if errs := (nodeStrategy{}).PrepareForStatusUpdate(obj, asDecoded(t, old)); errs != nil {
		t.Fatal(errs)
	}
	if v := nestedMap(obj, false, "spec")["unschedulable"]; v != true {
		t.Errorf("spec.unschedulable: got %v, want true", v)
	}
	if got := builtin("", "nodes").FieldSet(asDecoded(t, &corev1.Node{}))["spec.unschedulable"]; got != "false" {
		t.Errorf("field spec.unschedulable of a schedulable node: got %q, want false", got)
	}
}

func TestPodTemplateStrategy(t *testing.T) {
	tmpl := &corev1.PodTemplate{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
		Containers: []corev1.Container{{Name: "c", Image: "x", Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{"cpu": resource.MustParse("1")}}}},
	}}}
	obj := asDecoded(t, tmpl)
	if errs := (podTemplateStrategy{}).PrepareForCreate(time.Time{}, obj); errs != nil {
		t.Fatal(errs)
	}
	spec := nestedMap(obj, false, "template", "spec")
	c := spec["containers"].([]any)[0].(map[string]any)
	checks := []struct {
		name      string
		got, want any
	}{
		{"restartPolicy", spec["restartPolicy"], "Always"},
		{"imagePullPolicy", c["imagePullPolicy"], "Always"},
		// Pod-only defaults and admission do not touch templates.
		{"no requests from limits", nestedMap(c, false, "resources")["requests"], nil},
		{"no tolerations", spec["tolerations"], nil},
		{"no service account", spec["serviceAccountName"], nil},
	}
	for _, ch := range checks {
		if !reflect.DeepEqual(ch.got, ch.want) {
			t.Errorf("%s: got %v, want %v", ch.name, ch.got, ch.want)
		}
	}
	bad := &corev1.PodTemplate{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}}}
	got := describeErrors(podTemplateStrategy{}.PrepareForCreate(time.Time{}, asDecoded(t, bad)))
	want := []string{"Required value template.spec.containers[0].image: "}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
