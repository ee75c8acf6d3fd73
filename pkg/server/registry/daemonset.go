package registry

import (
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// daemonSetStrategy holds DaemonSets to kube-apiserver's rules. Beside
// the usual workload rules it keeps the template generation that
// apps/v1 serves as the deprecated.daemonset.template.generation
// annotation: 1 on create, one more on each template change, never
// set by clients.
type daemonSetStrategy struct{}

func (daemonSetStrategy) PrepareForCreate(_ time.Time, obj map[string]any) field.ErrorList {
	var ds appsv1.DaemonSet
	if errs := toTyped(obj, &ds); len(errs) > 0 {
		return errs
	}
	defaultDaemonSet(&ds)
	ds.Status = appsv1.DaemonSetStatus{}
	gen, errs := templateGeneration(&ds)
	if len(errs) > 0 {
		return errs
	}
	setTemplateGeneration(&ds, max(gen, 1))
	if errs := daemonSetSpecErrors(&ds.Spec, field.NewPath("spec")); len(errs) > 0 {
		return errs
	}
	return fromTyped(obj, &ds)
}

func (daemonSetStrategy) PrepareForUpdate(_ time.Time, obj, old map[string]any) field.ErrorList {
	var ds, prev appsv1.DaemonSet
	if errs := append(toTyped(obj, &ds), toTyped(old, &prev)...); len(errs) > 0 {
		return errs
	}
	defaultDaemonSet(&ds)
	ds.Status = prev.Status
	gen, errs := templateGeneration(&prev)
	if len(errs) > 0 {
		return errs
	}
	if !equality.Semantic.DeepEqual(ds.Spec.Template, prev.Spec.Template) {
		gen++
	}
	setTemplateGeneration(&ds, gen)
	path := field.NewPath("spec")
	// kube validates an updated spec twice, as a new DaemonSet and as
	// an update, and answers with each cause twice (the message once).
	specErrs := daemonSetSpecErrors(&ds.Spec, path)
	errs = append(specErrs, specErrs...)
	errs = append(errs, selectorImmutable(ds.Spec.Selector, prev.Spec.Selector, path.Child("selector"))...)
	if len(errs) > 0 {
		return errs
	}
	return fromTyped(obj, &ds)
}

// PrepareForStatusUpdate is kube's daemonSetStatusStrategy.
func (daemonSetStrategy) PrepareForStatusUpdate(obj, old map[string]any) field.ErrorList {
	keepSpec(obj, old)
	var ds, prev appsv1.DaemonSet
	if errs := append(toTyped(obj, &ds), toTyped(old, &prev)...); len(errs) > 0 {
		return errs
	}
	// The template generation is spec in kube's internal type, so a
	// status write keeps the stored one.
	gen, errs := templateGeneration(&prev)
	if len(errs) > 0 {
		return errs
	}
	setTemplateGeneration(&ds, gen)
	if errs := daemonSetStatusErrors(&ds.Status, &prev.Status); len(errs) > 0 {
		return errs
	}
	return fromTyped(obj, &ds)
}

// templateGeneration reads the annotation kube converts to and from
// its internal spec.templateGeneration; absent is 0.
func templateGeneration(ds *appsv1.DaemonSet) (int64, field.ErrorList) {
	v, ok := ds.Annotations[appsv1.DeprecatedTemplateGeneration]
	if !ok {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, field.ErrorList{field.Invalid(field.NewPath("metadata", "annotations").Key(appsv1.DeprecatedTemplateGeneration), v, err.Error())}
	}
	return n, nil
}

func setTemplateGeneration(ds *appsv1.DaemonSet, gen int64) {
	if ds.Annotations == nil {
		ds.Annotations = map[string]string{}
	}
	ds.Annotations[appsv1.DeprecatedTemplateGeneration] = strconv.FormatInt(gen, 10)
}

// defaultDaemonSet is kube's SetDefaults_DaemonSet, with the pod
// template's defaults.
func defaultDaemonSet(ds *appsv1.DaemonSet) {
	st := &ds.Spec.UpdateStrategy
	if st.Type == "" {
		st.Type = appsv1.RollingUpdateDaemonSetStrategyType
	}
	if st.Type == appsv1.RollingUpdateDaemonSetStrategyType {
		if st.RollingUpdate == nil {
			st.RollingUpdate = &appsv1.RollingUpdateDaemonSet{}
		}
		if st.RollingUpdate.MaxUnavailable == nil {
			st.RollingUpdate.MaxUnavailable = ptr.To(intstr.FromInt32(1))
		}
		if st.RollingUpdate.MaxSurge == nil {
			st.RollingUpdate.MaxSurge = ptr.To(intstr.FromInt32(0))
		}
	}
	if ds.Spec.RevisionHistoryLimit == nil {
		ds.Spec.RevisionHistoryLimit = ptr.To[int32](10)
	}
	defaultPodSpec(&ds.Spec.Template.Spec)
}

// daemonSetSpecErrors is kube's ValidateDaemonSetSpec. Unlike the other
// workloads, a missing selector is reported as one that does not match
// the template.
func daemonSetSpecErrors(s *appsv1.DaemonSetSpec, path *field.Path) field.ErrorList {
	sp := path.Child("selector")
	errs := metav1validation.ValidateLabelSelector(s.Selector, metav1validation.LabelSelectorValidationOptions{}, sp)
	if sel, err := metav1.LabelSelectorAsSelector(s.Selector); err == nil && !sel.Matches(labels.Set(s.Template.Labels)) {
		errs = append(errs, field.Invalid(path.Child("template", "metadata", "labels"), goSyntax(s.Template.Labels), "`selector` does not match template `labels`"))
	}
	if s.Selector != nil && len(s.Selector.MatchLabels)+len(s.Selector.MatchExpressions) == 0 {
		errs = append(errs, field.Invalid(sp, goSyntax(s.Selector), "empty selector is invalid for daemonset"))
	}
	errs = append(errs, podTemplateSpecErrors(&s.Template, path.Child("template"))...)
	errs = append(errs, longRunningErrors(&s.Template.Spec, path.Child("template", "spec"), "DaemonSet")...)
	errs = append(errs, nonNegative(int64(s.MinReadySeconds), path.Child("minReadySeconds"))...)
	errs = append(errs, daemonSetStrategyErrors(&s.UpdateStrategy, path.Child("updateStrategy"))...)
	if s.RevisionHistoryLimit != nil {
		errs = append(errs, nonNegative(int64(*s.RevisionHistoryLimit), path.Child("revisionHistoryLimit"))...)
	}
	return errs
}

// daemonSetStrategyErrors is kube's ValidateDaemonSetUpdateStrategy: a
// rolling update either takes a node's pod down first or surges a new
// one beside it, not both.
func daemonSetStrategyErrors(st *appsv1.DaemonSetUpdateStrategy, path *field.Path) field.ErrorList {
	switch st.Type {
	case appsv1.OnDeleteDaemonSetStrategyType:
		return nil
	case appsv1.RollingUpdateDaemonSetStrategyType:
		if st.RollingUpdate == nil {
			return field.ErrorList{field.Required(path.Child("rollingUpdate"), "")}
		}
		p := path.Child("rollingUpdate")
		unavailable, surge := intOrZero(st.RollingUpdate.MaxUnavailable), intOrZero(st.RollingUpdate.MaxSurge)
		errs := positiveIntOrPercent(unavailable, p.Child("maxUnavailable"))
		errs = append(errs, positiveIntOrPercent(surge, p.Child("maxSurge"))...)
		errs = append(errs, notOver100Percent(unavailable, p.Child("maxUnavailable"))...)
		errs = append(errs, notOver100Percent(surge, p.Child("maxSurge"))...)
		hasUnavailable, hasSurge := intOrPercentValue(unavailable) != 0, intOrPercentValue(surge) != 0
		switch {
		case hasUnavailable && hasSurge:
			errs = append(errs, field.Invalid(p.Child("maxSurge"), goSyntax(surge), "may not be set when maxUnavailable is non-zero"))
		case !hasUnavailable && !hasSurge:
			errs = append(errs, field.Required(p.Child("maxUnavailable"), "cannot be 0 when maxSurge is 0"))
		}
		return errs
	}
	ru := "(*apps.RollingUpdateDaemonSet)(nil)"
	if st.RollingUpdate != nil {
		ru = "&apps.RollingUpdateDaemonSet{...}"
	}
	return field.ErrorList{field.NotSupported(path, printedAs("apps.DaemonSetUpdateStrategy{Type:"+strconv.Quote(string(st.Type))+", RollingUpdate:"+ru+"}"),
		[]string{string(appsv1.RollingUpdateDaemonSetStrategyType), string(appsv1.OnDeleteDaemonSetStrategyType)})}
}

// daemonSetStatusErrors is kube's ValidateDaemonSetStatusUpdate.
func daemonSetStatusErrors(st, old *appsv1.DaemonSetStatus) field.ErrorList {
	path := field.NewPath("status")
	var errs field.ErrorList
	for _, c := range []struct {
		name string
		v    int64
	}{{"currentNumberScheduled", int64(st.CurrentNumberScheduled)}, {"numberMisscheduled", int64(st.NumberMisscheduled)},
		{"desiredNumberScheduled", int64(st.DesiredNumberScheduled)}, {"numberReady", int64(st.NumberReady)},
		{"observedGeneration", st.ObservedGeneration}, {"updatedNumberScheduled", int64(st.UpdatedNumberScheduled)},
		{"numberAvailable", int64(st.NumberAvailable)}, {"numberUnavailable", int64(st.NumberUnavailable)}} {
		errs = append(errs, nonNegative(c.v, path.Child(c.name))...)
	}
	if st.CollisionCount != nil {
		errs = append(errs, nonNegative(int64(*st.CollisionCount), path.Child("collisionCount"))...)
	}
	return append(errs, collisionNotDecremented(st.CollisionCount, old.CollisionCount, path.Child("collisionCount"))...)
}
