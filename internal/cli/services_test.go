package cli

import (
	"fmt"
	"testing"
)

func TestParseServiceRanges(t *testing.T) {
	tests := []struct {
		cidr, ports string
		want        string // ClusterIPs and NodePorts, or "error"
	}{
		{"10.96.0.0/12", "30000-32767", "10.96.0.0/12 [30000 32767]"},
		{"10.0.0.5/24", "20000-20100", "10.0.0.0/24 [20000 20100]"},
		{"10.0.0.0/30", "30000-32767", "error"},
		{"fd00::/108", "30000-32767", "error"},
		{"nonsense", "30000-32767", "error"},
		{"10.96.0.0/12", "32767-30000", "error"},
		{"10.96.0.0/12", "30000", "error"},
		{"10.96.0.0/12", "0-100", "error"},
	}
	for _, tt := range tests {
		r, err := parseServiceRanges(tt.cidr, tt.ports)
		got := "error"
		if err == nil {
			got = fmt.Sprint(r.ClusterIPs, " ", r.NodePorts)
		}
		if got != tt.want {
			t.Errorf("parseServiceRanges(%q, %q) = %s, want %s", tt.cidr, tt.ports, got, tt.want)
		}
	}
}
