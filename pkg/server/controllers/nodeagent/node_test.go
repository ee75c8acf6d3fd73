package nodeagent

import (
	"errors"
	"fmt"
	"net/netip"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func mustConfig(t *testing.T, o Options) config {
	t.Helper()
	c, err := o.config()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestNewNode(t *testing.T) {
	c := mustConfig(t, Options{Nodes: 3})
	n := c.newNode(2, t0)
	q := func(r corev1.ResourceList, name corev1.ResourceName) string { v := r[name]; return v.String() }
	checks := []struct {
		name      string
		got, want any
	}{
		{"name", n.Name, "sim-node-2"},
		{"hostname label", n.Labels["kubernetes.io/hostname"], "sim-node-2"},
		{"os label", n.Labels["kubernetes.io/os"], "linux"},
		{"arch label", n.Labels["kubernetes.io/arch"], "amd64"},
		{"beta arch label", n.Labels["beta.kubernetes.io/arch"], "amd64"},
		{"role label", n.Labels["node-role.kubernetes.io/agent"], ""},
		{"simulated", IsSimulated(n), true},
		{"podCIDR", n.Spec.PodCIDR, "10.244.2.0/24"},
		{"podCIDRs", fmt.Sprint(n.Spec.PodCIDRs), "[10.244.2.0/24]"},
		{"InternalIP", n.Status.Addresses[0], corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "172.18.0.4"}},
		{"Hostname", n.Status.Addresses[1], corev1.NodeAddress{Type: corev1.NodeHostName, Address: "sim-node-2"}},
		{"cpu", q(n.Status.Capacity, corev1.ResourceCPU), "32"},
		{"pods", q(n.Status.Allocatable, corev1.ResourcePods), "110"},
		{"memory allocatable", q(n.Status.Allocatable, corev1.ResourceMemory), "262044Mi"},
		{"kubeletVersion", n.Status.NodeInfo.KubeletVersion, DefaultKubeletVersion},
		{"architecture", n.Status.NodeInfo.Architecture, "amd64"},
		{"kubelet port", n.Status.DaemonEndpoints.KubeletEndpoint.Port, int32(10250)},
		{"conditions", len(n.Status.Conditions), 4},
		{"ready", n.Status.Conditions[3].Type == corev1.NodeReady && n.Status.Conditions[3].Status == corev1.ConditionTrue &&
			n.Status.Conditions[3].Reason == "KubeletReady", true},
		{"heartbeat", lastHeartbeat(n), t0},
	}
	for _, ch := range checks {
		if ch.got != ch.want {
			t.Errorf("%s: got %v, want %v", ch.name, ch.got, ch.want)
		}
	}
}

func TestReportStatus(t *testing.T) {
	c := mustConfig(t, Options{})
	tests := []struct {
		name        string
		node        func() *corev1.Node
		wantChanged bool
	}{
		{"registered node, later heartbeat", func() *corev1.Node { return c.newNode(0, t0) }, false},
		{"bare user node", func() *corev1.Node {
			return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "mine", Labels: map[string]string{LabelSimulated: "true"}}}
		}, true},
		{"node that went not ready", func() *corev1.Node {
			n := c.newNode(0, t0)
			n.Status.Conditions[3].Status, n.Status.Conditions[3].Reason = corev1.ConditionUnknown, "NodeStatusUnknown"
			return n
		}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := tc.node()
			later := t0.Add(time.Minute)
			if got := c.reportStatus(n, 5, later); got != tc.wantChanged {
				t.Errorf("changed = %t, want %t", got, tc.wantChanged)
			}
			if got := lastHeartbeat(n); !got.Equal(later) {
				t.Errorf("heartbeat %s, want %s", got, later)
			}
			ready := nodeCondition(n.Status.Conditions, corev1.NodeReady)
			wantTransition := t0
			if tc.wantChanged {
				wantTransition = later
			}
			if ready.Status != corev1.ConditionTrue || !ready.LastTransitionTime.Time.Equal(wantTransition) {
				t.Errorf("Ready %s since %s, want True since %s", ready.Status, ready.LastTransitionTime, wantTransition)
			}
			if len(n.Status.Addresses) == 0 || n.Status.NodeInfo.KubeletVersion == "" || len(n.Status.Capacity) == 0 {
				t.Errorf("status not filled in: %+v", n.Status)
			}
		})
	}
}

func TestSlots(t *testing.T) {
	c := mustConfig(t, Options{ClusterCIDR: "10.8.0.0/20", NodeCIDR: "192.168.5.0/24"})
	for _, tc := range []struct {
		slot    int
		cidr    string
		nodeIP  string
		inRange bool
	}{{0, "10.8.0.0/24", "192.168.5.2", true}, {15, "10.8.15.0/24", "192.168.5.17", true}} {
		if got := c.podCIDR(tc.slot).String(); got != tc.cidr {
			t.Errorf("podCIDR(%d) = %s, want %s", tc.slot, got, tc.cidr)
		}
		if got := c.nodeIP(tc.slot).String(); got != tc.nodeIP {
			t.Errorf("nodeIP(%d) = %s, want %s", tc.slot, got, tc.nodeIP)
		}
		if got, ok := c.slotOf(tc.cidr); got != tc.slot || ok != tc.inRange {
			t.Errorf("slotOf(%s) = %d, %t", tc.cidr, got, ok)
		}
	}
	if _, ok := c.slotOf("10.9.0.0/24"); ok {
		t.Error("a CIDR outside the cluster CIDR has a slot")
	}
	if c.slots() != 16 {
		t.Errorf("slots = %d, want 16", c.slots())
	}
}

func TestOptionsErrors(t *testing.T) {
	for _, tc := range []struct {
		o     Options
		field string
	}{
		{Options{Nodes: -1}, "Nodes"},
		{Options{ClusterCIDR: "10.0.0.0/25"}, "ClusterCIDR"},
		{Options{ClusterCIDR: "fd00::/64"}, "ClusterCIDR"},
		{Options{NodeCIDR: "nope"}, "NodeCIDR"},
		{Options{Nodes: 17, ClusterCIDR: "10.8.0.0/20"}, "Nodes"},
		{Options{Nodes: 16, ClusterCIDR: "10.8.0.0/20"}, ""},
	} {
		err := tc.o.Validate()
		var oe *OptionsError
		if tc.field == "" && err == nil {
			continue
		}
		if !errors.As(err, &oe) || oe.Field != tc.field {
			t.Errorf("%+v: error %v, want one about %s", tc.o, err, tc.field)
		}
	}
}

func TestRenewLease(t *testing.T) {
	c := mustConfig(t, Options{})
	n := c.newNode(0, t0)
	n.UID = "node-uid"
	var l coordinationv1.Lease
	c.renewLease(&l, n, t0)
	if l.Namespace != "kube-node-lease" || l.Name != "sim-node-0" || *l.Spec.HolderIdentity != "sim-node-0" ||
		*l.Spec.LeaseDurationSeconds != 40 || !l.Spec.RenewTime.Time.Equal(t0) {
		t.Errorf("lease %+v", l)
	}
	if len(l.OwnerReferences) != 1 || l.OwnerReferences[0].Kind != "Node" || l.OwnerReferences[0].UID != "node-uid" {
		t.Errorf("owner %+v", l.OwnerReferences)
	}
}

func TestPodIPs(t *testing.T) {
	a := newPodIPs()
	cidr := netip.MustParsePrefix("10.244.1.0/30") // room for one pod: .2
	if _, err := a.assign("n", "p1"); err == nil {
		t.Fatal("assigned before seeding")
	}
	a.seed("n", netip.MustParsePrefix("10.244.1.0/29"), map[types.UID]string{"old": "10.244.1.2", "elsewhere": "10.0.0.9"})
	steps := []struct {
		op, pod, want string
	}{
		{"assign", "p1", "10.244.1.3"},
		{"assign", "p1", "10.244.1.3"}, // the same pod keeps its address
		{"assign", "p2", "10.244.1.4"},
		{"release", "old", ""},
		{"assign", "p3", "10.244.1.2"},
		{"assign", "p4", "10.244.1.5"},
		{"assign", "p5", "10.244.1.6"},
		{"assign", "p6", "error"}, // .7 is the broadcast address
		{"release", "p2", ""},
		{"assign", "p6", "10.244.1.4"},
	}
	for i, s := range steps {
		switch s.op {
		case "release":
			a.release(types.UID(s.pod))
		case "assign":
			got, err := a.assign("n", types.UID(s.pod))
			if err != nil {
				if !errors.Is(err, ErrNoPodIP) {
					t.Fatalf("step %d: %v", i, err)
				}
				got = "error"
			}
			if got != s.want {
				t.Fatalf("step %d: assign %s = %s, want %s", i, s.pod, got, s.want)
			}
		}
	}
	a.seed("small", cidr, nil)
	if got, err := a.assign("small", "x"); err != nil || got != "10.244.1.2" {
		t.Errorf("small CIDR: %s, %v", got, err)
	}
	if _, err := a.assign("small", "y"); !errors.Is(err, ErrNoPodIP) {
		t.Errorf("full CIDR: %v", err)
	}
}
