package registry

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

// dropGatedFields removes what kube-apiserver v1.33 drops from a new pod
// spec because its feature gate is off by default, as its
// DropDisabledPodFields does for Pods and every pod template: image
// volumes with the mounts of them (ImageVolume), and clusterTrustBundle
// projections (ClusterTrustBundleProjection). kube keeps them on an
// update of an object already using them; Setpoint never stores them,
// so dropping them always is the same.
func dropGatedFields(spec *corev1.PodSpec) {
	images := sets.New[string]()
	vols := spec.Volumes[:0]
	for _, v := range spec.Volumes {
		if v.Image != nil {
			images.Insert(v.Name)
			continue
		}
		if v.Projected != nil {
			for j := range v.Projected.Sources {
				v.Projected.Sources[j].ClusterTrustBundle = nil
			}
		}
		vols = append(vols, v)
	}
	if len(spec.Volumes) > 0 && len(vols) == 0 {
		vols = nil
	}
	spec.Volumes = vols
	if images.Len() == 0 {
		return
	}
	keep := func(ms []corev1.VolumeMount) []corev1.VolumeMount {
		var out []corev1.VolumeMount
		for _, m := range ms {
			if !images.Has(m.Name) {
				out = append(out, m)
			}
		}
		return out
	}
	for i := range spec.InitContainers {
		spec.InitContainers[i].VolumeMounts = keep(spec.InitContainers[i].VolumeMounts)
	}
	for i := range spec.Containers {
		spec.Containers[i].VolumeMounts = keep(spec.Containers[i].VolumeMounts)
	}
	for i := range spec.EphemeralContainers {
		spec.EphemeralContainers[i].VolumeMounts = keep(spec.EphemeralContainers[i].VolumeMounts)
	}
}
