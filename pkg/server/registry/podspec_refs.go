package registry

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// pullSecretErrors is kube's validateImagePullSecrets: a reference
// carries a name and nothing else. (v1's LocalObjectReference has no
// other field, so decoding already drops anything else.)
func pullSecretErrors(refs []corev1.LocalObjectReference, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, r := range refs {
		if r != (corev1.LocalObjectReference{Name: r.Name}) {
			errs = append(errs, field.Invalid(path.Index(i), r, "only name may be set"))
		}
	}
	return errs
}

// readinessGateErrors is kube's validateReadinessGates: condition
// types are qualified names.
func readinessGateErrors(gates []corev1.PodReadinessGate, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, g := range gates {
		errs = append(errs, labelNameErrors(string(g.ConditionType), path.Index(i).Child("conditionType"))...)
	}
	return errs
}

// schedulingGateErrors is kube's validateSchedulingGates: qualified
// names, each once.
func schedulingGateErrors(gates []corev1.PodSchedulingGate, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := sets.New[string]()
	for i, g := range gates {
		errs = append(errs, labelNameErrors(g.Name, path.Index(i))...)
		if seen.Has(g.Name) {
			errs = append(errs, field.Duplicate(path.Index(i), g.Name))
		}
		seen.Insert(g.Name)
	}
	return errs
}

// hostNetworkPortErrors is kube's validatePodHostNetworkDeps: on the
// host's network a container's port is the host's port. A Pod's
// defaults have already copied containerPort into an unset hostPort,
// so an unset one here is a template's, which kube allows.
func hostNetworkPortErrors(spec *corev1.PodSpec, p *field.Path) field.ErrorList {
	if !spec.HostNetwork {
		return nil
	}
	var errs field.ErrorList
	for i, c := range spec.Containers {
		for j, port := range c.Ports {
			if port.HostPort != 0 && port.HostPort != port.ContainerPort {
				errs = append(errs, field.Invalid(p.Child("containers").Index(i).Child("ports").Index(j).Child("hostPort"),
					port.HostPort, "must match `containerPort` when `hostNetwork` is true"))
			}
		}
	}
	return errs
}

// overheadErrors is kube's validateOverhead: the overhead is checked as
// a container's limits would be, under overhead.limits as kube names
// them.
func overheadErrors(o corev1.ResourceList, p *field.Path) field.ErrorList {
	if o == nil {
		return nil
	}
	return resourceErrors(&corev1.ResourceRequirements{Limits: o}, p)
}

// labelNameErrors is kube v1.33's ValidateLabelName (its
// ValidateQualifiedName too). The apimachinery this module builds with
// words one message differently, for a key with more than one slash;
// this keeps v1.33's words.
func labelNameErrors(v string, p *field.Path) field.ErrorList {
	errs := metavalidation.ValidateLabelName(v, p)
	for _, e := range errs {
		if rest, ok := strings.CutPrefix(e.Detail, "a valid label key "); ok {
			e.Detail = "a qualified name " + rest
		}
	}
	return errs
}
