package registry

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// PrepareForEphemeralContainersUpdate takes a pod's ephemeral containers
// from the write and the rest from the stored pod, as kube's
// ephemeralcontainers subresource does: existing ones may be neither
// removed nor changed, and new ones are containers without what a
// workload relies on (ports, probes, resources, lifecycle).
func (podStrategy) PrepareForEphemeralContainersUpdate(obj, old map[string]any) (map[string]any, field.ErrorList) {
	var pod, prev corev1.Pod
	if errs := append(toTyped(obj, &pod), toTyped(old, &prev)...); len(errs) > 0 {
		return nil, errs
	}
	next := prev.DeepCopy()
	next.Spec.EphemeralContainers = pod.Spec.EphemeralContainers
	defaultPodSpec(&next.Spec)
	path := field.NewPath("spec", "ephemeralContainers")
	var errs field.ErrorList
	byName := map[string]*corev1.EphemeralContainer{}
	for i := range next.Spec.EphemeralContainers {
		byName[next.Spec.EphemeralContainers[i].Name] = &next.Spec.EphemeralContainers[i]
	}
	for _, o := range prev.Spec.EphemeralContainers {
		n, ok := byName[o.Name]
		switch {
		case !ok:
			errs = append(errs, field.Forbidden(path, fmt.Sprintf("existing ephemeral containers %q may not be removed\n", o.Name)))
		case !equality.Semantic.DeepEqual(o, *n):
			errs = append(errs, field.Forbidden(path, fmt.Sprintf("existing ephemeral containers %q may not be changed\n", o.Name)))
		}
	}
	errs = append(errs, ephemeralContainersErrors(&next.Spec, path)...)
	if len(errs) > 0 {
		return nil, errs
	}
	out := map[string]any{}
	if e := fromTyped(out, next); len(e) > 0 {
		return nil, e
	}
	return out, nil
}

// ephemeralContainersErrors is kube's validateEphemeralContainers.
func ephemeralContainersErrors(spec *corev1.PodSpec, path *field.Path) field.ErrorList {
	vols, _ := volumeErrors(spec.Volumes, nil, path)
	others, all := sets.New[string](), sets.New[string]()
	for _, cs := range [][]corev1.Container{spec.Containers, spec.InitContainers} {
		for _, c := range cs {
			others.Insert(c.Name)
			all.Insert(c.Name)
		}
	}
	var errs field.ErrorList
	for i, ec := range spec.EphemeralContainers {
		p := path.Index(i)
		c := corev1.Container(ec.EphemeralContainerCommon)
		errs = append(errs, containerErrors(&c, vols, hostUsers(spec), p)...)
		if all.Has(ec.Name) {
			errs = append(errs, field.Duplicate(p.Child("name"), ec.Name))
		}
		all.Insert(ec.Name)
		if ec.TargetContainerName != "" && !others.Has(ec.TargetContainerName) {
			errs = append(errs, field.NotFound(p.Child("targetContainerName"), ec.TargetContainerName))
		}
		for _, f := range []struct {
			name string
			set  bool
		}{
			{"ports", len(ec.Ports) > 0},
			{"resources", !equality.Semantic.DeepEqual(ec.Resources, corev1.ResourceRequirements{})},
			{"resizePolicy", len(ec.ResizePolicy) > 0},
			{"restartPolicy", ec.RestartPolicy != nil},
			{"livenessProbe", ec.LivenessProbe != nil},
			{"readinessProbe", ec.ReadinessProbe != nil},
			{"startupProbe", ec.StartupProbe != nil},
			{"lifecycle", ec.Lifecycle != nil},
		} {
			if f.set {
				errs = append(errs, field.Forbidden(p.Child(f.name), "cannot be set for an Ephemeral Container"))
			}
		}
		for j, vm := range ec.VolumeMounts {
			if vm.SubPath != "" {
				errs = append(errs, field.Forbidden(p.Child("volumeMounts").Index(j).Child("subPath"), "cannot be set for an Ephemeral Container"))
			}
			if vm.SubPathExpr != "" {
				errs = append(errs, field.Forbidden(p.Child("volumeMounts").Index(j).Child("subPathExpr"), "cannot be set for an Ephemeral Container"))
			}
		}
	}
	return errs
}
