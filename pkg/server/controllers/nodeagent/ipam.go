package nodeagent

import (
	"errors"
	"fmt"
	"net/netip"
	"sync"

	"k8s.io/apimachinery/pkg/types"
)

// ErrNoPodIP says a node's pod CIDR has no address left.
var ErrNoPodIP = errors.New("no free pod IP in the node's pod CIDR")

// podIPs hands out pod addresses from each node's pod CIDR, never one
// address to two live pods of a node. It starts empty: the controller
// seeds a node from the pods already on it before its first assignment.
type podIPs struct {
	mu     sync.Mutex
	nodes  map[string]*nodeIPs
	byNode map[types.UID]string // pod -> node holding its address
}

type nodeIPs struct {
	cidr  netip.Prefix
	inUse map[netip.Addr]types.UID
	byPod map[types.UID]netip.Addr
}

func newPodIPs() *podIPs {
	return &podIPs{nodes: map[string]*nodeIPs{}, byNode: map[types.UID]string{}}
}

// seeded reports whether node's addresses are known.
func (a *podIPs) seeded(node string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, ok := a.nodes[node]
	return ok
}

// seed records node's CIDR and the addresses its live pods hold.
func (a *podIPs) seed(node string, cidr netip.Prefix, held map[types.UID]string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.nodes[node]; ok {
		return
	}
	n := &nodeIPs{cidr: cidr, inUse: map[netip.Addr]types.UID{}, byPod: map[types.UID]netip.Addr{}}
	a.nodes[node] = n
	for uid, s := range held {
		if ip, err := netip.ParseAddr(s); err == nil && cidr.Contains(ip) {
			n.inUse[ip], n.byPod[uid] = uid, ip
			a.byNode[uid] = node
		}
	}
}

// assign returns pod's address on node, picking the lowest free one
// (the network address and the gateway .1 excluded) on first call.
func (a *podIPs) assign(node string, pod types.UID) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	n, ok := a.nodes[node]
	if !ok {
		return "", fmt.Errorf("node %s: pod addresses not seeded", node)
	}
	if ip, ok := n.byPod[pod]; ok {
		return ip.String(), nil
	}
	first := n.cidr.Masked().Addr().Next().Next()
	for ip := first; n.cidr.Contains(ip); ip = ip.Next() {
		if !n.cidr.Contains(ip.Next()) {
			break // the broadcast address
		}
		if _, used := n.inUse[ip]; !used {
			n.inUse[ip], n.byPod[pod] = pod, ip
			a.byNode[pod] = node
			return ip.String(), nil
		}
	}
	return "", fmt.Errorf("node %s (%s): %w", node, n.cidr, ErrNoPodIP)
}

// release frees pod's address, when it has one.
func (a *podIPs) release(pod types.UID) {
	a.mu.Lock()
	defer a.mu.Unlock()
	node, ok := a.byNode[pod]
	if !ok {
		return
	}
	delete(a.byNode, pod)
	if n := a.nodes[node]; n != nil {
		if ip, ok := n.byPod[pod]; ok {
			delete(n.inUse, ip)
			delete(n.byPod, pod)
		}
	}
}

// forget drops what is known of node, whose CIDR may have changed.
func (a *podIPs) forget(node string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if n := a.nodes[node]; n != nil {
		for uid := range n.byPod {
			delete(a.byNode, uid)
		}
	}
	delete(a.nodes, node)
}
