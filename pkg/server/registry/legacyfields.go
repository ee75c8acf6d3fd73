package registry

import corev1 "k8s.io/api/core/v1"

// kube-apiserver stores the plural form of a few fields whose singular
// form v1 still serves, and derives the singular from the plural on the
// way out. A write of the singular alone therefore shows up in both, and
// a singular that disagrees with the plural replaces it. These do the
// same round trip.

// syncPodIPs keeps status.podIP and status.podIPs[0] one address.
func syncPodIPs(st *corev1.PodStatus) {
	if st.PodIP != "" && (len(st.PodIPs) == 0 || st.PodIPs[0].IP != st.PodIP) {
		st.PodIPs = []corev1.PodIP{{IP: st.PodIP}}
	}
	st.PodIP = ""
	if len(st.PodIPs) > 0 {
		st.PodIP = st.PodIPs[0].IP
	}
}

// syncPodCIDRs keeps spec.podCIDR and spec.podCIDRs[0] one range.
func syncPodCIDRs(spec *corev1.NodeSpec) {
	if spec.PodCIDR != "" && (len(spec.PodCIDRs) == 0 || spec.PodCIDRs[0] != spec.PodCIDR) {
		spec.PodCIDRs = []string{spec.PodCIDR}
	}
	spec.PodCIDR = ""
	if len(spec.PodCIDRs) > 0 {
		spec.PodCIDR = spec.PodCIDRs[0]
	}
}
