package registry

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// deploymentStrategy holds Deployments to kube-apiserver's rules:
// apps/v1 defaults, a selector that matches the template and never
// changes, a rollout strategy that can make progress, and a status only
// the deployment controller writes.
type deploymentStrategy struct{}

func (deploymentStrategy) PrepareForCreate(_ time.Time, obj map[string]any) field.ErrorList {
	var d appsv1.Deployment
	if errs := toTyped(obj, &d); len(errs) > 0 {
		return errs
	}
	defaultDeployment(&d)
	// The controller reports status; a new Deployment has none.
	d.Status = appsv1.DeploymentStatus{}
	if errs := deploymentSpecErrors(&d.Spec, field.NewPath("spec")); len(errs) > 0 {
		return errs
	}
	return fromTyped(obj, &d)
}

func (deploymentStrategy) PrepareForUpdate(_ time.Time, obj, old map[string]any) field.ErrorList {
	var d, prev appsv1.Deployment
	if errs := append(toTyped(obj, &d), toTyped(old, &prev)...); len(errs) > 0 {
		return errs
	}
	// Defaults apply on every decode, so an update that leaves out a
	// defaulted field compares equal to the stored Deployment.
	defaultDeployment(&d)
	d.Status = prev.Status
	path := field.NewPath("spec")
	errs := deploymentSpecErrors(&d.Spec, path)
	errs = append(errs, selectorImmutable(d.Spec.Selector, prev.Spec.Selector, path.Child("selector"))...)
	if len(errs) > 0 {
		return errs
	}
	return fromTyped(obj, &d)
}

// BumpsGeneration: the deployment controller copies a Deployment's
// annotations to its ReplicaSets, so kube counts a change of them as a
// new generation for the controller to act on.
func (deploymentStrategy) BumpsGeneration(obj, old map[string]any) bool {
	a := nestedMap(obj, false, "metadata")["annotations"]
	b := nestedMap(old, false, "metadata")["annotations"]
	return !equality.Semantic.DeepEqual(nonEmpty(a), nonEmpty(b))
}

// nonEmpty is a map or nil, so that no annotations and an empty map of
// them compare equal.
func nonEmpty(v any) map[string]any {
	m, _ := v.(map[string]any)
	if len(m) == 0 {
		return nil
	}
	return m
}

// PrepareForStatusUpdate is kube's deploymentStatusStrategy: a status
// write keeps the stored spec and labels, and its counts must agree.
func (deploymentStrategy) PrepareForStatusUpdate(obj, old map[string]any) field.ErrorList {
	keepSpec(obj, old)
	keepLabels(obj, old)
	var d, prev appsv1.Deployment
	if errs := append(toTyped(obj, &d), toTyped(old, &prev)...); len(errs) > 0 {
		return errs
	}
	// terminatingReplicas is behind a gate v1.33 leaves off: dropped
	// unless the stored status has it.
	if prev.Status.TerminatingReplicas == nil {
		d.Status.TerminatingReplicas = nil
	}
	if errs := deploymentStatusErrors(&d.Status, &prev.Status); len(errs) > 0 {
		return errs
	}
	return fromTyped(obj, &d)
}

// ScaleSelector is the Deployment's selector in label selector syntax.
func (deploymentStrategy) ScaleSelector(obj map[string]any) string {
	return scaleSelector(obj)
}

// scaleSelector is a workload's spec.selector as its Scale reports it.
func scaleSelector(obj map[string]any) string {
	sel, err := specSelector(obj)
	if err != nil {
		return ""
	}
	return sel.String()
}

// keepLabels puts back the stored labels: kube's status writes of
// Deployments may not change them.
func keepLabels(obj, old map[string]any) {
	meta := nestedMap(obj, true, "metadata")
	if l, ok := nestedMap(old, true, "metadata")["labels"]; ok {
		meta["labels"] = l
	} else {
		delete(meta, "labels")
	}
}

// defaultDeployment is kube's SetDefaults_Deployment, with the pod
// template's defaults.
func defaultDeployment(d *appsv1.Deployment) {
	s := &d.Spec
	if s.Replicas == nil {
		s.Replicas = ptr.To[int32](1)
	}
	if s.Strategy.Type == "" {
		s.Strategy.Type = appsv1.RollingUpdateDeploymentStrategyType
	}
	if s.Strategy.Type == appsv1.RollingUpdateDeploymentStrategyType {
		if s.Strategy.RollingUpdate == nil {
			s.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{}
		}
		ru := s.Strategy.RollingUpdate
		if ru.MaxUnavailable == nil {
			ru.MaxUnavailable = ptr.To(intstr.FromString("25%"))
		}
		if ru.MaxSurge == nil {
			ru.MaxSurge = ptr.To(intstr.FromString("25%"))
		}
	}
	if s.RevisionHistoryLimit == nil {
		s.RevisionHistoryLimit = ptr.To[int32](10)
	}
	if s.ProgressDeadlineSeconds == nil {
		s.ProgressDeadlineSeconds = ptr.To[int32](600)
	}
	defaultPodSpec(&s.Template.Spec)
}

// deploymentSpecErrors is kube's ValidateDeploymentSpec.
func deploymentSpecErrors(s *appsv1.DeploymentSpec, path *field.Path) field.ErrorList {
	errs := nonNegative(int64(ptr.Deref(s.Replicas, 0)), path.Child("replicas"))
	errs = append(errs, workloadSelectorErrors(s.Selector, path.Child("selector"), "deployment")...)
	if sel, serrs := selectorOf(s.Selector, path.Child("selector"), "invalid label selector"); len(serrs) > 0 {
		errs = append(errs, serrs...)
	} else {
		errs = append(errs, replicatedTemplateErrors(&s.Template, sel, path.Child("template"), "ReplicaSet")...)
	}
	errs = append(errs, deploymentStrategyErrors(&s.Strategy, path.Child("strategy"))...)
	errs = append(errs, nonNegative(int64(s.MinReadySeconds), path.Child("minReadySeconds"))...)
	if s.RevisionHistoryLimit != nil {
		// Zero is valid: keep no old ReplicaSets.
		errs = append(errs, nonNegative(int64(*s.RevisionHistoryLimit), path.Child("revisionHistoryLimit"))...)
	}
	if p := s.ProgressDeadlineSeconds; p != nil {
		errs = append(errs, nonNegative(int64(*p), path.Child("progressDeadlineSeconds"))...)
		if *p <= s.MinReadySeconds {
			errs = append(errs, field.Invalid(path.Child("progressDeadlineSeconds"), int64(*p), "must be greater than minReadySeconds"))
		}
	}
	return errs
}

// deploymentStrategyErrors is kube's ValidateDeploymentStrategy: a
// rolling update must be able to move, by surging or by taking pods
// down.
func deploymentStrategyErrors(st *appsv1.DeploymentStrategy, path *field.Path) field.ErrorList {
	switch st.Type {
	case appsv1.RecreateDeploymentStrategyType:
		if st.RollingUpdate != nil {
			return field.ErrorList{field.Forbidden(path.Child("rollingUpdate"), "may not be specified when strategy `type` is 'Recreate'")}
		}
		return nil
	case appsv1.RollingUpdateDeploymentStrategyType:
		if st.RollingUpdate == nil {
			return field.ErrorList{field.Required(path.Child("rollingUpdate"), "this should be defaulted and never be nil")}
		}
		p := path.Child("rollingUpdate")
		unavailable, surge := intOrZero(st.RollingUpdate.MaxUnavailable), intOrZero(st.RollingUpdate.MaxSurge)
		errs := positiveIntOrPercent(unavailable, p.Child("maxUnavailable"))
		errs = append(errs, positiveIntOrPercent(surge, p.Child("maxSurge"))...)
		if intOrPercentValue(unavailable) == 0 && intOrPercentValue(surge) == 0 {
			errs = append(errs, field.Invalid(p.Child("maxUnavailable"), goSyntax(unavailable), "may not be 0 when `maxSurge` is 0"))
		}
		// kube bounds maxUnavailable only: a surge may exceed 100%.
		return append(errs, notOver100Percent(unavailable, p.Child("maxUnavailable"))...)
	}
	return field.ErrorList{field.NotSupported(path, internalStrategy(st), []string{string(appsv1.RecreateDeploymentStrategyType), string(appsv1.RollingUpdateDeploymentStrategyType)})}
}

// internalStrategy renders a strategy as kube prints its internal
// type in the refusal, but for the address of the rolling update
// parameters, which differs on every request.
func internalStrategy(st *appsv1.DeploymentStrategy) printedAs {
	ru := "(*apps.RollingUpdateDeployment)(nil)"
	if st.RollingUpdate != nil {
		ru = "&apps.RollingUpdateDeployment{...}"
	}
	return printedAs(fmt.Sprintf("apps.DeploymentStrategy{Type:%q, RollingUpdate:%s}", st.Type, ru))
}

// deploymentStatusErrors is kube's ValidateDeploymentStatusUpdate.
func deploymentStatusErrors(st, old *appsv1.DeploymentStatus) field.ErrorList {
	path := field.NewPath("status")
	errs := nonNegative(st.ObservedGeneration, path.Child("observedGeneration"))
	for _, c := range []struct {
		name string
		v    int32
	}{{"replicas", st.Replicas}, {"updatedReplicas", st.UpdatedReplicas}, {"readyReplicas", st.ReadyReplicas},
		{"availableReplicas", st.AvailableReplicas}, {"unavailableReplicas", st.UnavailableReplicas}} {
		errs = append(errs, nonNegative(int64(c.v), path.Child(c.name))...)
	}
	if st.TerminatingReplicas != nil {
		errs = append(errs, nonNegative(int64(*st.TerminatingReplicas), path.Child("terminatingReplicas"))...)
	}
	if st.CollisionCount != nil {
		errs = append(errs, nonNegative(int64(*st.CollisionCount), path.Child("collisionCount"))...)
	}
	errs = append(errs, countsWithinReplicas(path, st.Replicas, map[string]int32{"updatedReplicas": st.UpdatedReplicas, "readyReplicas": st.ReadyReplicas, "availableReplicas": st.AvailableReplicas}, "updatedReplicas", "readyReplicas", "availableReplicas")...)
	if st.AvailableReplicas > st.ReadyReplicas {
		errs = append(errs, field.Invalid(path.Child("availableReplicas"), int64(st.AvailableReplicas), "cannot be greater than readyReplicas"))
	}
	return append(errs, collisionNotDecremented(st.CollisionCount, old.CollisionCount, path.Child("collisionCount"))...)
}

// countsWithinReplicas: no count of pods in some state exceeds the
// pods there are; order lists the counts as kube checks them.
func countsWithinReplicas(path *field.Path, replicas int32, counts map[string]int32, order ...string) field.ErrorList {
	var errs field.ErrorList
	for _, name := range order {
		if counts[name] > replicas {
			errs = append(errs, field.Invalid(path.Child(name), int64(counts[name]), "cannot be greater than status.replicas"))
		}
	}
	return errs
}

// collisionNotDecremented: the hash collision count only grows, or
// controllers would reuse a name they moved away from.
func collisionNotDecremented(now, was *int32, path *field.Path) field.ErrorList {
	if was == nil || (now != nil && *now >= *was) {
		return nil
	}
	return field.ErrorList{field.Invalid(path, int64(ptr.Deref(now, 0)), "cannot be decremented")}
}
