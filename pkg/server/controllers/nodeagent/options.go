package nodeagent

import (
	"fmt"
	"net/netip"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/setpoint-dev/setpoint/pkg/clock"
)

// Options configure the node agent. The zero value registers no node
// and simulates the nodes users create with the simulated label.
type Options struct {
	// Nodes is how many simulated nodes the agent registers at start,
	// named NamePrefix0, NamePrefix1, ...; nodes that exist are kept.
	Nodes int
	// NamePrefix names the registered nodes; empty is "sim-node-".
	NamePrefix string
	// Capacity is each registered node's capacity; missing resources
	// take the defaults (32 cpu, 256Gi memory, 110 pods, 100Gi
	// ephemeral-storage, no huge pages). Allocatable is capacity less
	// the kubelet's default hard eviction thresholds (memory 100Mi,
	// ephemeral-storage 10%).
	Capacity corev1.ResourceList
	// Arch is the kubernetes.io/arch of registered nodes; empty is amd64.
	Arch string
	// ClusterCIDR is where the nodes' pod CIDRs come from, one /24 per
	// node in order; empty is 10.244.0.0/16, as kubeadm and kind set it.
	ClusterCIDR string
	// NodeCIDR is where the nodes' InternalIPs come from, the node of
	// pod CIDR n getting the address n+2; empty is 172.18.0.0/16.
	NodeCIDR string
	// KubeletVersion is the version the nodes report; empty is
	// DefaultKubeletVersion.
	KubeletVersion string
	// LeaseInterval is how often a node's Lease is renewed; 0 is 10 s,
	// the kubelet's. The lease lasts four times as long (40 s).
	LeaseInterval time.Duration
	// StatusInterval is how often an unchanged node status is posted
	// again, refreshing the conditions' lastHeartbeatTime; 0 is 5 min,
	// the kubelet's nodeStatusReportFrequency. The Lease is what says a
	// node is alive in between.
	StatusInterval time.Duration
	// Workers is how many pods are stepped at once; 0 is 64. Each real
	// node runs its own kubelet, writing its pods' statuses beside the
	// other nodes', so a few workers for every simulated node would
	// queue what real nodes do side by side.
	Workers int
	// Clock is the time source of the steps, heartbeats and requeues;
	// nil is the real clock.
	Clock clock.Clock
}

// DefaultKubeletVersion is the version simulated nodes report, shaped as
// a kubelet's and naming Setpoint as kwok names itself.
const DefaultKubeletVersion = "v1.33.0-setpoint"

// OptionsError says which option is wrong.
type OptionsError struct {
	Field string
	Err   error
}

func (e *OptionsError) Error() string { return fmt.Sprintf("nodeagent option %s: %v", e.Field, e.Err) }

func (e *OptionsError) Unwrap() error { return e.Err }

// Validate reports what Setup would refuse in o, as an *OptionsError, so
// that a command line can be checked before the server starts.
func (o Options) Validate() error {
	_, err := o.config()
	return err
}

// config is Options with the defaults in and the CIDRs parsed.
type config struct {
	Options
	clusterCIDR, nodeCIDR netip.Prefix
}

func (o Options) config() (config, error) {
	if o.Nodes < 0 {
		return config{}, &OptionsError{"Nodes", fmt.Errorf("must not be negative, got %d", o.Nodes)}
	}
	if o.NamePrefix == "" {
		o.NamePrefix = "sim-node-"
	}
	if o.Arch == "" {
		o.Arch = "amd64"
	}
	if o.ClusterCIDR == "" {
		o.ClusterCIDR = "10.244.0.0/16"
	}
	if o.NodeCIDR == "" {
		o.NodeCIDR = "172.18.0.0/16"
	}
	if o.KubeletVersion == "" {
		o.KubeletVersion = DefaultKubeletVersion
	}
	if o.LeaseInterval <= 0 {
		o.LeaseInterval = 10 * time.Second
	}
	if o.StatusInterval <= 0 {
		o.StatusInterval = 5 * time.Minute
	}
	if o.Workers <= 0 {
		o.Workers = 64
	}
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	c := config{Options: o}
	var err error
	if c.clusterCIDR, err = netip.ParsePrefix(o.ClusterCIDR); err != nil || !c.clusterCIDR.Addr().Is4() || c.clusterCIDR.Bits() > 24 {
		return config{}, &OptionsError{"ClusterCIDR", fmt.Errorf("want an IPv4 prefix of /24 or wider, got %q", o.ClusterCIDR)}
	}
	if c.nodeCIDR, err = netip.ParsePrefix(o.NodeCIDR); err != nil || !c.nodeCIDR.Addr().Is4() || c.nodeCIDR.Bits() > 30 {
		return config{}, &OptionsError{"NodeCIDR", fmt.Errorf("want an IPv4 prefix of /30 or wider, got %q", o.NodeCIDR)}
	}
	c.clusterCIDR, c.nodeCIDR = c.clusterCIDR.Masked(), c.nodeCIDR.Masked()
	if o.Nodes > c.slots() {
		return config{}, &OptionsError{"Nodes", fmt.Errorf("%d nodes do not fit: %s and %s have room for %d", o.Nodes, o.ClusterCIDR, o.NodeCIDR, c.slots())}
	}
	return c, nil
}

// slots is how many nodes the CIDRs have room for.
func (c config) slots() int {
	subnets := 1 << (24 - c.clusterCIDR.Bits())
	hosts := 1<<(32-c.nodeCIDR.Bits()) - 3 // network, .1 and broadcast
	return min(subnets, hosts)
}

// nodeName is the name of the i-th registered node.
func (c config) nodeName(i int) string { return c.NamePrefix + strconv.Itoa(i) }

// capacity is a registered node's capacity and allocatable.
func (c config) capacity() (capacity, allocatable corev1.ResourceList) {
	capacity = corev1.ResourceList{
		corev1.ResourceCPU:              resource.MustParse("32"),
		corev1.ResourceMemory:           resource.MustParse("256Gi"),
		corev1.ResourcePods:             resource.MustParse("110"),
		corev1.ResourceEphemeralStorage: resource.MustParse("100Gi"),
		"hugepages-1Gi":                 resource.MustParse("0"),
		"hugepages-2Mi":                 resource.MustParse("0"),
	}
	for k, v := range c.Capacity {
		capacity[k] = v.DeepCopy()
	}
	allocatable = corev1.ResourceList{}
	for k, v := range capacity {
		allocatable[k] = v.DeepCopy()
	}
	if m, ok := allocatable[corev1.ResourceMemory]; ok {
		m.Sub(resource.MustParse("100Mi"))
		if m.Sign() < 0 {
			m = resource.MustParse("0")
		}
		allocatable[corev1.ResourceMemory] = m
	}
	if s, ok := allocatable[corev1.ResourceEphemeralStorage]; ok {
		allocatable[corev1.ResourceEphemeralStorage] = *resource.NewQuantity(s.Value()/10*9, resource.BinarySI)
	}
	return capacity, allocatable
}
