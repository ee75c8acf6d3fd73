package registry

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// statefulSetStrategy holds StatefulSets to kube-apiserver's rules.
// A StatefulSet's pods and their claims are named after it and its
// service, so most of its spec is fixed once created: an update may
// change the replicas, the template, the update strategy and a few
// limits only.
type statefulSetStrategy struct{}

func (statefulSetStrategy) PrepareForCreate(_ time.Time, obj map[string]any) field.ErrorList {
	var ss appsv1.StatefulSet
	if errs := toTyped(obj, &ss); len(errs) > 0 {
		return errs
	}
	dropStatefulSetGated(&ss, nil)
	defaultStatefulSet(&ss)
	ss.Status = appsv1.StatefulSetStatus{}
	if errs := statefulSetSpecErrors(&ss.Spec, field.NewPath("spec"), false); len(errs) > 0 {
		return errs
	}
	return fromTyped(obj, &ss)
}

func (statefulSetStrategy) PrepareForUpdate(_ time.Time, obj, old map[string]any) field.ErrorList {
	var ss, prev appsv1.StatefulSet
	if errs := append(toTyped(obj, &ss), toTyped(old, &prev)...); len(errs) > 0 {
		return errs
	}
	dropStatefulSetGated(&ss, &prev)
	defaultStatefulSet(&ss)
	ss.Status = prev.Status
	// The service name is immutable; a stored one that is no longer
	// valid must not lock the object.
	errs := statefulSetSpecErrors(&ss.Spec, field.NewPath("spec"), true)
	errs = append(errs, statefulSetUpdateErrors(&ss.Spec, &prev.Spec)...)
	if len(errs) > 0 {
		return errs
	}
	return fromTyped(obj, &ss)
}

// PrepareForStatusUpdate is kube's statefulSetStatusStrategy.
func (statefulSetStrategy) PrepareForStatusUpdate(obj, old map[string]any) field.ErrorList {
	keepSpec(obj, old)
	var ss, prev appsv1.StatefulSet
	if errs := append(toTyped(obj, &ss), toTyped(old, &prev)...); len(errs) > 0 {
		return errs
	}
	return statefulSetStatusErrors(&ss.Status, &prev.Status)
}

// ScaleSelector is the StatefulSet's selector in label selector syntax.
func (statefulSetStrategy) ScaleSelector(obj map[string]any) string { return scaleSelector(obj) }

// dropStatefulSetGated clears rollingUpdate.maxUnavailable, behind the
// MaxUnavailableStatefulSet gate that v1.33 leaves off, unless the
// stored object already uses it.
func dropStatefulSetGated(ss, old *appsv1.StatefulSet) {
	if old != nil && old.Spec.UpdateStrategy.RollingUpdate != nil && old.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable != nil {
		return
	}
	if ru := ss.Spec.UpdateStrategy.RollingUpdate; ru != nil {
		ru.MaxUnavailable = nil
	}
}

// defaultStatefulSet is kube's SetDefaults_StatefulSet (with the
// StatefulSetAutoDeletePVC gate on, as in v1.33), the pod template's
// defaults, and what the claim templates get as PersistentVolumeClaims.
func defaultStatefulSet(ss *appsv1.StatefulSet) {
	s := &ss.Spec
	if s.PodManagementPolicy == "" {
		s.PodManagementPolicy = appsv1.OrderedReadyPodManagement
	}
	if s.UpdateStrategy.Type == "" {
		s.UpdateStrategy.Type = appsv1.RollingUpdateStatefulSetStrategyType
		if s.UpdateStrategy.RollingUpdate == nil {
			s.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{}
		}
	}
	if ru := s.UpdateStrategy.RollingUpdate; s.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType && ru != nil && ru.Partition == nil {
		ru.Partition = ptr.To[int32](0)
	}
	if s.PersistentVolumeClaimRetentionPolicy == nil {
		s.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{}
	}
	if p := s.PersistentVolumeClaimRetentionPolicy; p.WhenDeleted == "" {
		p.WhenDeleted = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	if p := s.PersistentVolumeClaimRetentionPolicy; p.WhenScaled == "" {
		p.WhenScaled = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	if s.Replicas == nil {
		s.Replicas = ptr.To[int32](1)
	}
	if s.RevisionHistoryLimit == nil {
		s.RevisionHistoryLimit = ptr.To[int32](10)
	}
	defaultPodSpec(&s.Template.Spec)
	for i := range s.VolumeClaimTemplates {
		defaultClaimTemplate(&s.VolumeClaimTemplates[i])
	}
}

// defaultClaimTemplate is what kube's defaulting and conversion give a
// claim template: a PersistentVolumeClaim's defaults (Pending,
// Filesystem) and, as served, its apiVersion and kind.
func defaultClaimTemplate(c *corev1.PersistentVolumeClaim) {
	c.APIVersion, c.Kind = "v1", "PersistentVolumeClaim"
	if c.Status.Phase == "" {
		c.Status.Phase = corev1.ClaimPending
	}
	if c.Spec.VolumeMode == nil {
		c.Spec.VolumeMode = ptr.To(corev1.PersistentVolumeFilesystem)
	}
}

// statefulSetSpecErrors is kube's ValidateStatefulSetSpec; updating
// tolerates a stored service name kube no longer accepts.
func statefulSetSpecErrors(s *appsv1.StatefulSetSpec, path *field.Path, updating bool) field.ErrorList {
	var errs field.ErrorList
	switch s.PodManagementPolicy {
	case appsv1.OrderedReadyPodManagement, appsv1.ParallelPodManagement:
	default:
		errs = append(errs, field.Invalid(path.Child("podManagementPolicy"), string(s.PodManagementPolicy),
			fmt.Sprintf("must be '%s' or '%s'", appsv1.OrderedReadyPodManagement, appsv1.ParallelPodManagement)))
	}
	errs = append(errs, statefulSetStrategyErrors(&s.UpdateStrategy, path.Child("updateStrategy"))...)
	if p := s.PersistentVolumeClaimRetentionPolicy; p != nil {
		pp := path.Child("persistentVolumeClaimRetentionPolicy")
		for _, f := range []struct {
			name string
			v    appsv1.PersistentVolumeClaimRetentionPolicyType
		}{{"whenDeleted", p.WhenDeleted}, {"whenScaled", p.WhenScaled}} {
			if f.v != appsv1.RetainPersistentVolumeClaimRetentionPolicyType && f.v != appsv1.DeletePersistentVolumeClaimRetentionPolicyType {
				errs = append(errs, field.NotSupported(pp.Child(f.name), f.v, []string{"Retain", "Delete"}))
			}
		}
	}
	errs = append(errs, nonNegative(int64(ptr.Deref(s.Replicas, 0)), path.Child("replicas"))...)
	errs = append(errs, nonNegative(int64(s.MinReadySeconds), path.Child("minReadySeconds"))...)
	if s.Ordinals != nil {
		// kube names this one path "ordinals.start".
		errs = append(errs, nonNegative(int64(s.Ordinals.Start), path.Child("ordinals.start"))...)
	}
	if !updating && s.ServiceName != "" {
		for _, msg := range validation.IsDNS1123Label(s.ServiceName) {
			errs = append(errs, field.Invalid(path.Child("serviceName"), s.ServiceName, msg))
		}
	}
	errs = append(errs, workloadSelectorErrors(s.Selector, path.Child("selector"), "statefulset")...)
	if sel, serrs := selectorOf(s.Selector, path.Child("selector"), ""); len(serrs) > 0 {
		errs = append(errs, serrs...)
	} else {
		// kube checks the labels and annotations of a StatefulSet's
		// template, not its pod spec, which the claim templates'
		// volumes complete.
		t := path.Child("template")
		errs = append(errs, selectorMismatch(sel, &s.Template, t)...)
		errs = append(errs, templateMetaErrors(&s.Template, t)...)
	}
	return append(errs, longRunningErrors(&s.Template.Spec, path.Child("template", "spec"), "StatefulSet")...)
}

// statefulSetStrategyErrors checks spec.updateStrategy.
func statefulSetStrategyErrors(st *appsv1.StatefulSetUpdateStrategy, path *field.Path) field.ErrorList {
	switch st.Type {
	case "":
		return field.ErrorList{field.Required(path, "")}
	case appsv1.OnDeleteStatefulSetStrategyType:
		if st.RollingUpdate != nil {
			return field.ErrorList{field.Invalid(path.Child("rollingUpdate"), internalRollingUpdate(st.RollingUpdate),
				fmt.Sprintf("only allowed for updateStrategy '%s'", appsv1.RollingUpdateStatefulSetStrategyType))}
		}
	case appsv1.RollingUpdateStatefulSetStrategyType:
		ru := st.RollingUpdate
		if ru == nil {
			return nil
		}
		p := path.Child("rollingUpdate")
		errs := nonNegative(int64(ptr.Deref(ru.Partition, 0)), p.Child("partition"))
		if ru.MaxUnavailable != nil {
			mp := p.Child("maxUnavailable")
			errs = append(errs, positiveIntOrPercent(*ru.MaxUnavailable, mp)...)
			if intOrPercentValue(*ru.MaxUnavailable) == 0 {
				errs = append(errs, field.Invalid(mp, goSyntax(*ru.MaxUnavailable), "cannot be 0"))
			}
			errs = append(errs, notOver100Percent(*ru.MaxUnavailable, mp)...)
		}
		return errs
	default:
		ru := "(*apps.RollingUpdateStatefulSetStrategy)(nil)"
		if st.RollingUpdate != nil {
			ru = "&" + string(internalRollingUpdate(st.RollingUpdate))
		}
		return field.ErrorList{field.Invalid(path, printedAs(fmt.Sprintf("apps.StatefulSetUpdateStrategy{Type:%q, RollingUpdate:%s}", st.Type, ru)),
			fmt.Sprintf("must be '%s' or '%s'", appsv1.RollingUpdateStatefulSetStrategyType, appsv1.OnDeleteStatefulSetStrategyType))}
	}
	return nil
}

// internalRollingUpdate prints rolling update parameters as kube's
// internal type, whose partition is a number, not a pointer.
func internalRollingUpdate(ru *appsv1.RollingUpdateStatefulSetStrategy) printedAs {
	mu := "(*intstr.IntOrString)(nil)"
	if ru.MaxUnavailable != nil {
		mu = "&" + string(goSyntax(*ru.MaxUnavailable))
	}
	return printedAs(fmt.Sprintf("apps.RollingUpdateStatefulSetStrategy{Partition:%d, MaxUnavailable:%s}", ptr.Deref(ru.Partition, 0), mu))
}

// statefulSetUpdateErrors is the rest of kube's
// ValidateStatefulSetUpdate: what is left once the fields an update may
// change are set back must be as stored.
func statefulSetUpdateErrors(s, old *appsv1.StatefulSetSpec) field.ErrorList {
	rest := s.DeepCopy()
	rest.Replicas = old.Replicas
	rest.Template = old.Template
	rest.UpdateStrategy = old.UpdateStrategy
	rest.MinReadySeconds = old.MinReadySeconds
	rest.Ordinals = old.Ordinals
	rest.RevisionHistoryLimit = old.RevisionHistoryLimit
	rest.PersistentVolumeClaimRetentionPolicy = old.PersistentVolumeClaimRetentionPolicy
	if equality.Semantic.DeepEqual(rest, old) {
		return nil
	}
	return field.ErrorList{field.Forbidden(field.NewPath("spec"), "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', "+
		"'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden")}
}

// statefulSetStatusErrors is kube's ValidateStatefulSetStatusUpdate.
func statefulSetStatusErrors(st, old *appsv1.StatefulSetStatus) field.ErrorList {
	path := field.NewPath("status")
	var errs field.ErrorList
	for _, c := range []struct {
		name string
		v    int32
	}{{"replicas", st.Replicas}, {"readyReplicas", st.ReadyReplicas}, {"currentReplicas", st.CurrentReplicas},
		{"updatedReplicas", st.UpdatedReplicas}, {"availableReplicas", st.AvailableReplicas}} {
		errs = append(errs, nonNegative(int64(c.v), path.Child(c.name))...)
	}
	if st.ObservedGeneration != 0 {
		errs = append(errs, nonNegative(st.ObservedGeneration, path.Child("observedGeneration"))...)
	}
	if st.CollisionCount != nil {
		errs = append(errs, nonNegative(int64(*st.CollisionCount), path.Child("collisionCount"))...)
	}
	errs = append(errs, countsWithinReplicas(path, st.Replicas, map[string]int32{"readyReplicas": st.ReadyReplicas, "currentReplicas": st.CurrentReplicas,
		"updatedReplicas": st.UpdatedReplicas, "availableReplicas": st.AvailableReplicas}, "readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas")...)
	if st.AvailableReplicas > st.ReadyReplicas {
		errs = append(errs, field.Invalid(path.Child("availableReplicas"), int64(st.AvailableReplicas), "cannot be greater than status.readyReplicas"))
	}
	return append(errs, collisionNotDecremented(st.CollisionCount, old.CollisionCount, path.Child("collisionCount"))...)
}
