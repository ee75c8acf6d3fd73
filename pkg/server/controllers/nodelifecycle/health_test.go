package nodelifecycle

import (
	"fmt"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var t0 = time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)

func node(ready corev1.ConditionStatus, heartbeat time.Time, mutate ...func(*corev1.Node)) *corev1.Node {
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "n1", CreationTimestamp: metav1.NewTime(t0.Add(-time.Hour))},
		Spec:       corev1.NodeSpec{Taints: []corev1.Taint{{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}}},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{
			{Type: corev1.NodeReady, Status: ready, Reason: "KubeletReady", LastHeartbeatTime: metav1.NewTime(heartbeat)},
			{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, LastHeartbeatTime: metav1.NewTime(heartbeat)},
		}},
	}
	for _, m := range mutate {
		m(n)
	}
	return n
}

func lease(renewed time.Time) *coordinationv1.Lease {
	r := metav1.NewMicroTime(renewed)
	return &coordinationv1.Lease{Spec: coordinationv1.LeaseSpec{RenewTime: &r}}
}

func taintList(ts []corev1.Taint) string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Key+":"+string(t.Effect))
	}
	return strings.Join(out, ",")
}

func condList(cs []corev1.NodeCondition) string {
	var out []string
	for _, c := range cs {
		out = append(out, fmt.Sprintf("%s=%s/%s", c.Type, c.Status, c.Reason))
	}
	return strings.Join(out, ",")
}

func TestHealth(t *testing.T) {
	tests := []struct {
		name        string
		node        *corev1.Node
		lease       *coordinationv1.Lease
		now         time.Time
		wantConds   string // "" when unchanged
		wantTaints  string
		wantRecheck time.Duration
	}{
		{"ready node loses its not-ready taint", node(corev1.ConditionTrue, t0), lease(t0), t0.Add(10 * time.Second),
			"", "", 41 * time.Second},
		{"not ready node is tainted for scheduling and execution", node(corev1.ConditionFalse, t0), nil, t0,
			"", "node.kubernetes.io/not-ready:NoSchedule,node.kubernetes.io/not-ready:NoExecute", 51 * time.Second},
		{"the lease keeps a node alive past its status heartbeat", node(corev1.ConditionTrue, t0), lease(t0.Add(40 * time.Second)), t0.Add(60 * time.Second),
			"", "", 31 * time.Second},
		{"silent node turns Unknown and unreachable", node(corev1.ConditionTrue, t0), lease(t0), t0.Add(51 * time.Second),
			"Ready=Unknown/NodeStatusUnknown,MemoryPressure=Unknown/NodeStatusUnknown,DiskPressure=Unknown/NodeStatusNeverUpdated,PIDPressure=Unknown/NodeStatusNeverUpdated",
			"node.kubernetes.io/unreachable:NoSchedule,node.kubernetes.io/unreachable:NoExecute", 0},
		{"user taints stay, cordon taints", node(corev1.ConditionTrue, t0, func(n *corev1.Node) {
			n.Spec.Unschedulable = true
			n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule})
		}), lease(t0), t0,
			"", "dedicated:NoSchedule,node.kubernetes.io/unschedulable:NoSchedule", 51 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Health(tt.node, tt.lease, tt.now, DefaultGracePeriod)
			if got := condList(d.Conditions); got != tt.wantConds {
				t.Errorf("conditions %q, want %q", got, tt.wantConds)
			}
			if got := taintList(d.Taints); got != tt.wantTaints {
				t.Errorf("taints %q, want %q", got, tt.wantTaints)
			}
			if d.Recheck != tt.wantRecheck {
				t.Errorf("recheck %s, want %s", d.Recheck, tt.wantRecheck)
			}
			for _, ta := range d.Taints {
				if ta.Effect == corev1.TaintEffectNoExecute && (ta.TimeAdded == nil || !ta.TimeAdded.Time.Equal(tt.now)) {
					t.Errorf("NoExecute taint %s added at %v, want %s", ta.Key, ta.TimeAdded, tt.now)
				}
			}
		})
	}
}

// TestHealthStable: a decision applied is decided again unchanged, so the
// controller does not write forever.
func TestHealthStable(t *testing.T) {
	n := node(corev1.ConditionTrue, t0)
	now := t0.Add(2 * time.Minute)
	d := Health(n, nil, now, DefaultGracePeriod)
	n.Status.Conditions, n.Spec.Taints = d.Conditions, d.Taints
	again := Health(n, nil, now.Add(time.Minute), DefaultGracePeriod)
	if again.Conditions != nil || taintList(again.Taints) != taintList(d.Taints) {
		t.Errorf("second decision changed: conditions %q, taints %q", condList(again.Conditions), taintList(again.Taints))
	}
	if !again.Taints[1].TimeAdded.Time.Equal(now) {
		t.Errorf("NoExecute taint re-stamped: %v", again.Taints[1].TimeAdded)
	}
}
