package registry

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestSyncPodIPs(t *testing.T) {
	tests := []struct {
		name     string
		in, want corev1.PodStatus
	}{
		{"singular only", corev1.PodStatus{PodIP: "10.0.0.1"},
			corev1.PodStatus{PodIP: "10.0.0.1", PodIPs: []corev1.PodIP{{IP: "10.0.0.1"}}}},
		{"plural only", corev1.PodStatus{PodIPs: []corev1.PodIP{{IP: "10.0.0.1"}, {IP: "fd00::1"}}},
			corev1.PodStatus{PodIP: "10.0.0.1", PodIPs: []corev1.PodIP{{IP: "10.0.0.1"}, {IP: "fd00::1"}}}},
		{"singular disagrees, and wins", corev1.PodStatus{PodIP: "10.0.0.2", PodIPs: []corev1.PodIP{{IP: "10.0.0.1"}, {IP: "fd00::1"}}},
			corev1.PodStatus{PodIP: "10.0.0.2", PodIPs: []corev1.PodIP{{IP: "10.0.0.2"}}}},
		{"neither", corev1.PodStatus{}, corev1.PodStatus{}},
	}
	for _, tt := range tests {
		got := tt.in
		syncPodIPs(&got)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestSyncPodCIDRs(t *testing.T) {
	tests := []struct {
		name     string
		in, want corev1.NodeSpec
	}{
		{"singular only", corev1.NodeSpec{PodCIDR: "10.0.0.0/24"}, corev1.NodeSpec{PodCIDR: "10.0.0.0/24", PodCIDRs: []string{"10.0.0.0/24"}}},
		{"plural only", corev1.NodeSpec{PodCIDRs: []string{"10.0.0.0/24", "fd00::/64"}},
			corev1.NodeSpec{PodCIDR: "10.0.0.0/24", PodCIDRs: []string{"10.0.0.0/24", "fd00::/64"}}},
		{"singular disagrees, and wins", corev1.NodeSpec{PodCIDR: "10.0.9.0/24", PodCIDRs: []string{"10.0.0.0/24"}},
			corev1.NodeSpec{PodCIDR: "10.0.9.0/24", PodCIDRs: []string{"10.0.9.0/24"}}},
	}
	for _, tt := range tests {
		got := tt.in
		syncPodCIDRs(&got)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
	}
}
