package cel

import "testing"

func TestIPLibrary(t *testing.T) {
	rulePath := "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule"
	runLibCases(t, []libCase{
		{name: "isIP", rule: "isIP('192.168.0.1') && isIP('2001:db8::68') && !isIP('192.168.0.1.0') && !isIP('192.168.0.1/24') && !isIP('') && !isIP(' 192.168.0.1')"},
		{name: "kube's exclusions", rule: "!isIP('fe80::1%eth0') && !isIP('::ffff:192.168.0.1') && !isIP('010.0.0.1')"},
		{name: "family", rule: "ip('192.168.0.1').family() == 4 && ip('2001:db8::68').family() == 6 && ip('::').family() == 6"},
		{name: "isCanonical", rule: "ip.isCanonical('127.0.0.1') && ip.isCanonical('2001:db8::68') && !ip.isCanonical('2001:DB8::68') && !ip.isCanonical('2001:db8:0:0:0:0:0:68')"},
		{name: "kinds of addresses", rule: "ip('127.0.0.1').isLoopback() && ip('::1').isLoopback() && !ip('10.0.0.1').isLoopback() && " +
			"ip('0.0.0.0').isUnspecified() && ip('::').isUnspecified() && !ip('127.0.0.1').isUnspecified() && " +
			"ip('224.0.0.1').isLinkLocalMulticast() && ip('ff02::1').isLinkLocalMulticast() && !ip('224.0.1.1').isLinkLocalMulticast() && " +
			"ip('169.254.1.1').isLinkLocalUnicast() && ip('fe80::1').isLinkLocalUnicast() && !ip('10.0.0.1').isLinkLocalUnicast() && " +
			"ip('8.8.8.8').isGlobalUnicast() && ip('10.0.0.1').isGlobalUnicast() && ip('2001:db8::1').isGlobalUnicast() && !ip('255.255.255.255').isGlobalUnicast() && !ip('ff00::1').isGlobalUnicast()"},
		{name: "string", rule: "string(ip('2001:db8:0:0::68')) == '2001:db8::68' && string(ip('10.0.0.1')) == '10.0.0.1'"},
		{name: "equality", rule: "ip('2001:db8::68') == ip('2001:db8:0::68') && !(ip('10.0.0.1') == ip('10.0.0.2'))"},
		// cel-go estimates != from sizes, which these values do not have; kube
		// has no estimate for it either
		{name: "inequality", rule: "ip('10.0.0.1') != ip('10.0.0.2')",
			compile: []string{"Forbidden " + rulePath + ": estimated rule cost exceeds budget by factor of more than 100x...", "Forbidden...", "Forbidden..."}},

		{name: "from a field", rule: "isIP(self.s) && ip(self.s).family() == 6", spec: `{"s":"::1"}`},
		{name: "failing", rule: "ip(self.s).family() == 6", spec: `{"s":"10.0.0.1"}`,
			want: []string{ruleFailed("ip(self.s).family() == 6")}},
		{name: "list items", rule: "self.l.all(x, ip.isCanonical(x))", spec: `{"l":["10.0.0.1","::1","::0"]}`,
			want: []string{ruleFailed("self.l.all(x, ip.isCanonical(x))")}},

		{name: "not an address", rule: "ip(self.s).family() == 4", spec: `{"s":"192.168.0.1.0"}`,
			want: []string{ruleErr(`IP Address "192.168.0.1.0" parse error during conversion from string: ParseAddr("192.168.0.1.0"): IPv4 address too long`, "ip(self.s).family() == 4")}},
		{name: "zone", rule: "ip(self.s).family() == 6", spec: `{"s":"fe80::1%eth0"}`,
			want: []string{ruleErr(`IP address "fe80::1%eth0" with zone value is not allowed`, "ip(self.s).family() == 6")}},
		{name: "mapped", rule: "ip(self.s).family() == 6", spec: `{"s":"::ffff:10.0.0.1"}`,
			want: []string{ruleErr(`IPv4-mapped IPv6 address "::ffff:10.0.0.1" is not allowed`, "ip(self.s).family() == 6")}},
		{name: "isCanonical of a non-address", rule: "ip.isCanonical(self.s)", spec: `{"s":"2001:db8:::68"}`,
			want: []string{ruleErr(`IP Address "2001:db8:::68" parse error during conversion from string: ParseAddr("2001:db8:::68"): each colon-separated field must have at least one digit (at ":68")`, "ip.isCanonical(self.s)")}},
		{name: "no int argument", rule: "ip(1).family() == 4",
			compile: []string{"Invalid value " + rulePath + ": compilation failed: ERROR: <input>:1:3: found no matching overload for 'ip' applied to '(int)'..."}},

		{name: "unbounded string", rule: "ip(self.u).isLoopback()", spec: `{"u":"127.0.0.1"}`},
	})
}

func TestCIDRLibrary(t *testing.T) {
	rulePath := "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule"
	runLibCases(t, []libCase{
		{name: "isCIDR", rule: "isCIDR('192.168.0.0/24') && isCIDR('2001:db8::/32') && isCIDR('10.0.0.1/8') && !isCIDR('10.0.0.0/33') && !isCIDR('10.0.0.0') && !isCIDR('::ffff:10.0.0.0/104') && !isCIDR('fe80::/64%eth0')"},
		{name: "containsIP", rule: "cidr('192.168.0.0/24').containsIP(ip('192.168.0.1')) && !cidr('192.168.0.0/24').containsIP(ip('192.168.1.1')) && " +
			"cidr('192.168.0.0/24').containsIP('192.168.0.1') && !cidr('192.168.0.0/24').containsIP('192.168.1.1') && " +
			"cidr('2001:db8::/32').containsIP('2001:db8::1') && !cidr('2001:db8::/32').containsIP('2001:dc8::1') && !cidr('0.0.0.0/0').containsIP('::1')"},
		{name: "containsCIDR", rule: "cidr('192.168.0.0/24').containsCIDR(cidr('192.168.0.0/25')) && cidr('192.168.0.0/24').containsCIDR(cidr('192.168.0.1/32')) && " +
			"!cidr('192.168.0.0/24').containsCIDR(cidr('192.168.0.0/23')) && !cidr('192.168.0.0/24').containsCIDR(cidr('192.169.0.1/32')) && " +
			"cidr('192.168.0.0/24').containsCIDR('192.168.0.0/25') && !cidr('2001:db8::/32').containsCIDR('2001:db8::/31') && cidr('2001:db8::/32').containsCIDR('2001:db8::/33')"},
		{name: "parts", rule: "cidr('192.168.0.1/24').ip() == ip('192.168.0.1') && cidr('192.168.0.1/24').masked() == cidr('192.168.0.0/24') && " +
			"cidr('192.168.0.1/24').prefixLength() == 24 && cidr('2001:db8::1/32').masked() == cidr('2001:db8::/32') && cidr('2001:db8::/32').ip().family() == 6"},
		{name: "string", rule: "string(cidr('2001:db8:0::/32')) == '2001:db8::/32' && string(cidr('10.0.0.1/8')) == '10.0.0.1/8' && string(cidr('10.0.0.1/8').masked()) == '10.0.0.0/8'"},
		{name: "equality", rule: "cidr('10.0.0.0/8') == cidr('10.0.0.0/8') && !(cidr('10.0.0.0/8') == cidr('10.0.0.1/8'))"},

		{name: "from fields", rule: "cidr(self.s).containsIP(self.t)", spec: `{"s":"10.0.0.0/8","t":"10.1.2.3"}`},
		{name: "failing", rule: "cidr(self.s).containsIP(self.t)", spec: `{"s":"10.0.0.0/8","t":"11.1.2.3"}`,
			want: []string{ruleFailed("cidr(self.s).containsIP(self.t)")}},
		{name: "list items", rule: "self.l.all(x, cidr('10.0.0.0/8').containsCIDR(x))", spec: `{"l":["10.1.0.0/16","10.0.0.0/7"]}`,
			want: []string{ruleFailed("self.l.all(x, cidr('10.0.0.0/8').containsCIDR(x))")}},

		{name: "not a prefix", rule: "cidr(self.s).prefixLength() > 0", spec: `{"s":"192.168.0.0/"}`,
			want: []string{ruleErr(`network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("192.168.0.0/"): bad bits after slash: ""`, "cidr(self.s).prefixLength() > 0")}},
		{name: "mapped", rule: "cidr(self.s).prefixLength() > 0", spec: `{"s":"::ffff:10.0.0.0/104"}`,
			want: []string{ruleErr(`network address parse error during conversion from string: IPv4-mapped IPv6 address "::ffff:10.0.0.0/104" is not allowed`, "cidr(self.s).prefixLength() > 0")}},
		// kube reports "no such overload" here: the parse error says more
		{name: "containsIP of a non-address", rule: "cidr('10.0.0.0/8').containsIP(self.s)", spec: `{"s":"10.0.0.256"}`,
			want: []string{ruleErr(`IP Address "10.0.0.256" parse error during conversion from string: ParseAddr("10.0.0.256"): IPv4 field has value >255`, "cidr('10.0.0.0/8').containsIP(self.s)")}},
		{name: "containsCIDR of a non-prefix", rule: "cidr('10.0.0.0/8').containsCIDR(self.s)", spec: `{"s":"10.0.0.0"}`,
			want: []string{ruleErr(`network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("10.0.0.0"): no '/'`, "cidr('10.0.0.0/8').containsCIDR(self.s)")}},
		{name: "no such overload", rule: "cidr('10.0.0.0/8').containsIP(1)",
			compile: []string{"Invalid value " + rulePath + ": compilation failed: ERROR: <input>:1:30: found no matching overload for 'containsIP' applied to 'net.CIDR.(int)'..."}},

		{name: "unbounded strings", rule: "cidr(self.u).containsIP(self.u) || cidr(self.u).containsCIDR(self.u)", spec: `{"u":"10.0.0.0/8"}`},
	})
}
