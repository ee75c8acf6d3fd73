package registry

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// replicaSetStrategy holds ReplicaSets to kube-apiserver's rules: a
// replica count and a template its selector matches, the selector
// fixed for the ReplicaSet's life, a status only the controller writes.
type replicaSetStrategy struct{}

func (replicaSetStrategy) PrepareForCreate(_ time.Time, obj map[string]any) field.ErrorList {
	var rs appsv1.ReplicaSet
	if errs := toTyped(obj, &rs); len(errs) > 0 {
		return errs
	}
	defaultReplicaSet(&rs)
	rs.Status = appsv1.ReplicaSetStatus{}
	if errs := replicaSetSpecErrors(&rs.Spec, field.NewPath("spec")); len(errs) > 0 {
		return errs
	}
	return fromTyped(obj, &rs)
}

func (replicaSetStrategy) PrepareForUpdate(_ time.Time, obj, old map[string]any) field.ErrorList {
	var rs, prev appsv1.ReplicaSet
	if errs := append(toTyped(obj, &rs), toTyped(old, &prev)...); len(errs) > 0 {
		return errs
	}
	defaultReplicaSet(&rs)
	rs.Status = prev.Status
	path := field.NewPath("spec")
	// kube validates an updated spec twice, as a new ReplicaSet and as
	// an update, and answers with each cause twice (the message once).
	specErrs := replicaSetSpecErrors(&rs.Spec, path)
	errs := append(specErrs, specErrs...)
	errs = append(errs, selectorImmutable(rs.Spec.Selector, prev.Spec.Selector, path.Child("selector"))...)
	if len(errs) > 0 {
		return errs
	}
	return fromTyped(obj, &rs)
}

// PrepareForStatusUpdate is kube's rsStatusStrategy: the spec stays,
// the counts must agree.
func (replicaSetStrategy) PrepareForStatusUpdate(obj, old map[string]any) field.ErrorList {
	keepSpec(obj, old)
	var rs, prev appsv1.ReplicaSet
	if errs := append(toTyped(obj, &rs), toTyped(old, &prev)...); len(errs) > 0 {
		return errs
	}
	// terminatingReplicas is behind a gate v1.33 leaves off: dropped
	// unless the stored status has it.
	if prev.Status.TerminatingReplicas == nil {
		rs.Status.TerminatingReplicas = nil
	}
	if errs := replicaSetStatusErrors(&rs.Status); len(errs) > 0 {
		return errs
	}
	return fromTyped(obj, &rs)
}

// ScaleSelector is the ReplicaSet's selector in label selector syntax.
func (replicaSetStrategy) ScaleSelector(obj map[string]any) string { return scaleSelector(obj) }

// defaultReplicaSet is kube's SetDefaults_ReplicaSet, with the pod
// template's defaults.
func defaultReplicaSet(rs *appsv1.ReplicaSet) {
	if rs.Spec.Replicas == nil {
		rs.Spec.Replicas = ptr.To[int32](1)
	}
	defaultPodSpec(&rs.Spec.Template.Spec)
}

// replicaSetSpecErrors is kube's ValidateReplicaSetSpec.
func replicaSetSpecErrors(s *appsv1.ReplicaSetSpec, path *field.Path) field.ErrorList {
	errs := nonNegative(int64(ptr.Deref(s.Replicas, 0)), path.Child("replicas"))
	errs = append(errs, nonNegative(int64(s.MinReadySeconds), path.Child("minReadySeconds"))...)
	// kube words an empty ReplicaSet selector as a Deployment's.
	errs = append(errs, workloadSelectorErrors(s.Selector, path.Child("selector"), "deployment")...)
	sel, serrs := selectorOf(s.Selector, path.Child("selector"), "invalid label selector")
	if len(serrs) > 0 {
		return append(errs, serrs...)
	}
	return append(errs, replicatedTemplateErrors(&s.Template, sel, path.Child("template"), "ReplicaSet")...)
}

// replicaSetStatusErrors is kube's ValidateReplicaSetStatus.
func replicaSetStatusErrors(st *appsv1.ReplicaSetStatus) field.ErrorList {
	path := field.NewPath("status")
	var errs field.ErrorList
	for _, c := range []struct {
		name string
		v    int64
	}{{"replicas", int64(st.Replicas)}, {"fullyLabeledReplicas", int64(st.FullyLabeledReplicas)}, {"readyReplicas", int64(st.ReadyReplicas)},
		{"availableReplicas", int64(st.AvailableReplicas)}, {"observedGeneration", st.ObservedGeneration}} {
		errs = append(errs, nonNegative(c.v, path.Child(c.name))...)
	}
	if st.TerminatingReplicas != nil {
		errs = append(errs, nonNegative(int64(*st.TerminatingReplicas), path.Child("terminatingReplicas"))...)
	}
	errs = append(errs, countsWithinReplicas(path, st.Replicas, map[string]int32{"fullyLabeledReplicas": st.FullyLabeledReplicas, "readyReplicas": st.ReadyReplicas, "availableReplicas": st.AvailableReplicas}, "fullyLabeledReplicas", "readyReplicas", "availableReplicas")...)
	if st.AvailableReplicas > st.ReadyReplicas {
		errs = append(errs, field.Invalid(path.Child("availableReplicas"), int64(st.AvailableReplicas), "cannot be greater than readyReplicas"))
	}
	return errs
}
