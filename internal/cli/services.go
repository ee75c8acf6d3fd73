package cli

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/setpoint-dev/setpoint/pkg/server/registry"
)

// parseServiceRanges reads --service-cluster-ip-range and
// --service-node-port-range as kube-apiserver takes them: an IPv4 CIDR
// with room for at least a few addresses, and "first-last".
func parseServiceRanges(cidr, ports string) (registry.ServiceRanges, error) {
	var r registry.ServiceRanges
	p, err := netip.ParsePrefix(cidr)
	if err != nil || !p.Addr().Is4() {
		return r, fmt.Errorf("--service-cluster-ip-range: %q is not an IPv4 CIDR", cidr)
	}
	if p.Bits() > 29 {
		return r, fmt.Errorf("--service-cluster-ip-range: %s is too small: a /29 is the least", cidr)
	}
	r.ClusterIPs = p.Masked()
	lo, hi, ok := strings.Cut(ports, "-")
	first, err1 := strconv.Atoi(strings.TrimSpace(lo))
	last, err2 := strconv.Atoi(strings.TrimSpace(hi))
	if !ok || err1 != nil || err2 != nil || first < 1 || last > 65535 || first > last {
		return r, fmt.Errorf("--service-node-port-range: %q is not a range of ports such as 30000-32767", ports)
	}
	r.NodePorts = [2]int{first, last}
	return r, nil
}
