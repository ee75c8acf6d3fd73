package cel

import (
	"fmt"
	"net/netip"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// kube's IP and CIDR libraries (k8s.io/apiserver/pkg/cel/library, in kube
// since 1.30):
//
//	ip('10.0.0.1'), isIP(s), ip.isCanonical(s), string(ip)
//	i.family()                                4 or 6
//	i.isUnspecified(), i.isLoopback(), i.isLinkLocalMulticast(),
//	i.isLinkLocalUnicast(), i.isGlobalUnicast()
//	cidr('10.0.0.0/8'), isCIDR(s), string(cidr)
//	c.containsIP(ip or string), c.containsCIDR(cidr or string)
//	c.ip(), c.masked(), c.prefixLength()
//
// Addresses parse with net/netip as in kube: no zones (fe80::1%eth0) and no
// IPv4-mapped IPv6 (::ffff:1.2.3.4); leading zeros in IPv4 are refused.
var (
	ipType   = cel.OpaqueType("net.IP")
	cidrType = cel.OpaqueType("net.CIDR")
)

func ipLibrary() cel.EnvOption {
	ipPredicate := func(name, id string, f func(netip.Addr) bool) cel.EnvOption {
		return cel.Function(name, cel.MemberOverload(id, []*cel.Type{ipType}, cel.BoolType,
			cel.UnaryBinding(unary(func(v ipVal) ref.Val { return types.Bool(f(v.v)) }))))
	}
	return cel.Lib(library{
		cel.Types(ipType),
		cel.Function("ip", cel.Overload("string_to_ip",
			[]*cel.Type{cel.StringType}, ipType, cel.UnaryBinding(stringToIP))),
		cel.Function("isIP", cel.Overload("is_ip",
			[]*cel.Type{cel.StringType}, cel.BoolType, cel.UnaryBinding(parses(parseIP)))),
		cel.Function("ip.isCanonical", cel.Overload("ip_is_canonical",
			[]*cel.Type{cel.StringType}, cel.BoolType, cel.UnaryBinding(unary(func(s types.String) ref.Val {
				a, err := parseIP(string(s))
				if err != nil {
					return types.NewErrFromString(err.Error())
				}
				// netip writes addresses in their canonical form (RFC 5952)
				return types.Bool(a.String() == string(s))
			})))),
		cel.Function("string", cel.Overload("ip_to_string",
			[]*cel.Type{ipType}, cel.StringType, cel.UnaryBinding(unary(func(v ipVal) ref.Val {
				return types.String(v.v.String())
			})))),
		cel.Function("family", cel.MemberOverload("ip_family",
			[]*cel.Type{ipType}, cel.IntType, cel.UnaryBinding(unary(func(v ipVal) ref.Val {
				if v.v.Is4() {
					return types.Int(4)
				}
				return types.Int(6)
			})))),
		ipPredicate("isUnspecified", "ip_is_unspecified", netip.Addr.IsUnspecified),
		ipPredicate("isLoopback", "ip_is_loopback", netip.Addr.IsLoopback),
		ipPredicate("isLinkLocalMulticast", "ip_is_link_local_multicast", netip.Addr.IsLinkLocalMulticast),
		ipPredicate("isLinkLocalUnicast", "ip_is_link_local_unicast", netip.Addr.IsLinkLocalUnicast),
		ipPredicate("isGlobalUnicast", "ip_is_global_unicast", netip.Addr.IsGlobalUnicast),
	})
}

func cidrLibrary() cel.EnvOption {
	return cel.Lib(library{
		cel.Types(cidrType),
		cel.Function("cidr", cel.Overload("string_to_cidr",
			[]*cel.Type{cel.StringType}, cidrType, cel.UnaryBinding(stringToCIDR))),
		cel.Function("isCIDR", cel.Overload("is_cidr",
			[]*cel.Type{cel.StringType}, cel.BoolType, cel.UnaryBinding(parses(parseCIDR)))),
		cel.Function("string", cel.Overload("cidr_to_string",
			[]*cel.Type{cidrType}, cel.StringType, cel.UnaryBinding(unary(func(c cidrVal) ref.Val {
				return types.String(c.v.String())
			})))),
		cel.Function("containsIP",
			cel.MemberOverload("cidr_contains_ip_string", []*cel.Type{cidrType, cel.StringType}, cel.BoolType,
				cel.BinaryBinding(func(c, s ref.Val) ref.Val { return cidrContainsIP(c, stringToIP(s)) })),
			cel.MemberOverload("cidr_contains_ip_ip", []*cel.Type{cidrType, ipType}, cel.BoolType,
				cel.BinaryBinding(cidrContainsIP))),
		cel.Function("containsCIDR",
			cel.MemberOverload("cidr_contains_cidr_string", []*cel.Type{cidrType, cel.StringType}, cel.BoolType,
				cel.BinaryBinding(func(c, s ref.Val) ref.Val { return cidrContainsCIDR(c, stringToCIDR(s)) })),
			cel.MemberOverload("cidr_contains_cidr", []*cel.Type{cidrType, cidrType}, cel.BoolType,
				cel.BinaryBinding(cidrContainsCIDR))),
		cel.Function("ip", cel.MemberOverload("cidr_ip",
			[]*cel.Type{cidrType}, ipType, cel.UnaryBinding(unary(func(c cidrVal) ref.Val {
				return ipKind.sizedOf(c.v.Addr())
			})))),
		cel.Function("prefixLength", cel.MemberOverload("cidr_prefix_length",
			[]*cel.Type{cidrType}, cel.IntType, cel.UnaryBinding(unary(func(c cidrVal) ref.Val {
				return types.Int(c.v.Bits())
			})))),
		cel.Function("masked", cel.MemberOverload("cidr_masked",
			[]*cel.Type{cidrType}, cidrType, cel.UnaryBinding(unary(func(c cidrVal) ref.Val {
				return cidrKind.sizedOf(c.v.Masked())
			})))),
	})
}

// parseIP parses an address as kube does, with kube's messages.
func parseIP(s string) (netip.Addr, error) {
	a, err := netip.ParseAddr(s)
	switch {
	case err != nil:
		return netip.Addr{}, fmt.Errorf("IP Address %q parse error during conversion from string: %v", s, err)
	case a.Zone() != "":
		return netip.Addr{}, fmt.Errorf("IP address %q with zone value is not allowed", s)
	case a.Is4In6():
		return netip.Addr{}, fmt.Errorf("IPv4-mapped IPv6 address %q is not allowed", s)
	}
	return a, nil
}

// parseCIDR parses a prefix as kube does, with kube's messages. A prefix
// may have host bits set (10.0.0.1/8): c.ip() returns them, c.masked()
// clears them.
func parseCIDR(s string) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(s)
	switch {
	case err != nil:
		return netip.Prefix{}, fmt.Errorf("network address parse error during conversion from string: %v", err)
	case p.Addr().Is4In6():
		return netip.Prefix{}, fmt.Errorf("IPv4-mapped IPv6 address %q is not allowed", s)
	}
	return p, nil
}

var stringToIP = unary(func(s types.String) ref.Val {
	a, err := parseIP(string(s))
	if err != nil {
		return types.NewErrFromString(err.Error())
	}
	return ipKind.sizedOf(a)
})

var stringToCIDR = unary(func(s types.String) ref.Val {
	p, err := parseCIDR(string(s))
	if err != nil {
		// kube says it twice
		return types.NewErr("network address parse error during conversion from string: %v", err)
	}
	return cidrKind.sizedOf(p)
})

// cidrContainsIP and cidrContainsCIDR pass on the error of a string that
// did not parse.
var cidrContainsIP = binary(func(c cidrVal, i ipVal) ref.Val {
	return types.Bool(c.v.Contains(i.v))
})

var cidrContainsCIDR = binary(func(c, o cidrVal) ref.Val {
	return types.Bool(c.v.Overlaps(o.v) && c.v.Bits() <= o.v.Bits())
})

// ipVal is an IP address in CEL, and cidrVal a network prefix. Their sizes
// (the address's length and the prefix length, in bytes, rounded up) are
// what kube's runtime costs use.
type (
	ipVal   = sizedVal[netip.Addr]
	cidrVal = sizedVal[netip.Prefix]
)

var ipKind = &valueKind[netip.Addr]{
	typ:           ipType,
	name:          "IP",
	native:        func(a netip.Addr) any { return a },
	str:           netip.Addr.String,
	castsToString: true,
	equal:         func(a, b netip.Addr) bool { return a == b },
	size:          func(a netip.Addr) int { return (a.BitLen() + 7) / 8 },
}

var cidrKind = &valueKind[netip.Prefix]{
	typ:           cidrType,
	name:          "CIDR",
	native:        func(p netip.Prefix) any { return p },
	str:           netip.Prefix.String,
	castsToString: true,
	equal:         func(a, b netip.Prefix) bool { return a == b },
	size:          func(p netip.Prefix) int { return (p.Bits() + 7) / 8 },
}
