package registry

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The rules the apps workloads share, ported from kube's
// pkg/apis/apps/validation with its paths and messages.

// goSyntax is a bad value as kube-apiserver v1.33 prints a Go value
// that has no String method: Go syntax, pointers followed.
func goSyntax(v any) printedAs {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || (rv.Kind() == reflect.Pointer && rv.IsNil()) {
		return "null"
	}
	if rv.Kind() == reflect.Pointer {
		v = rv.Elem().Interface()
	}
	return printedAs(fmt.Sprintf("%#v", v))
}

// workloadSelectorErrors checks spec.selector of a workload: required,
// well formed, and not empty, in kube's words for the kind ("for
// deployment" is also what kube says of ReplicaSets).
func workloadSelectorErrors(sel *metav1.LabelSelector, path *field.Path, kind string) field.ErrorList {
	if sel == nil {
		return field.ErrorList{field.Required(path, "")}
	}
	errs := metav1validation.ValidateLabelSelector(sel, metav1validation.LabelSelectorValidationOptions{}, path)
	if len(sel.MatchLabels)+len(sel.MatchExpressions) == 0 {
		errs = append(errs, field.Invalid(path, goSyntax(sel), "empty selector is invalid for "+kind))
	}
	return errs
}

// selectorMismatch is kube's refusal of a template whose labels the
// selector does not select: the workload would never see its own pods.
func selectorMismatch(sel labels.Selector, t *corev1.PodTemplateSpec, path *field.Path) field.ErrorList {
	if sel.Empty() || sel.Matches(labels.Set(t.Labels)) {
		return nil
	}
	return field.ErrorList{field.Invalid(path.Child("metadata", "labels"), goSyntax(t.Labels), "`selector` does not match template `labels`")}
}

// replicatedTemplateErrors is kube's ValidatePodTemplateSpecForReplicaSet
// (Deployments and ReplicaSets): the template matches the selector, is
// a valid pod template, and its pods run for ever. kind names the
// workload in the activeDeadlineSeconds refusal.
func replicatedTemplateErrors(t *corev1.PodTemplateSpec, sel labels.Selector, path *field.Path, kind string) field.ErrorList {
	errs := selectorMismatch(sel, t, path)
	errs = append(errs, podTemplateSpecErrors(t, path)...)
	return append(errs, longRunningErrors(&t.Spec, path.Child("spec"), kind)...)
}

// longRunningErrors: a workload's pods are restarted, never finish, so
// restartPolicy is Always and no deadline ends them.
func longRunningErrors(spec *corev1.PodSpec, path *field.Path, kind string) field.ErrorList {
	var errs field.ErrorList
	if spec.RestartPolicy != corev1.RestartPolicyAlways {
		errs = append(errs, field.NotSupported(path.Child("restartPolicy"), spec.RestartPolicy, []string{string(corev1.RestartPolicyAlways)}))
	}
	if spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, field.Forbidden(path.Child("activeDeadlineSeconds"), "activeDeadlineSeconds in "+kind+" is not Supported"))
	}
	return errs
}

// nonNegative is kube's ValidateNonnegativeField.
func nonNegative(v int64, path *field.Path) field.ErrorList {
	return apivalidation.ValidateNonnegativeField(v, path)
}

// positiveIntOrPercent is kube's ValidatePositiveIntOrPercent: a
// non-negative number or a percentage.
func positiveIntOrPercent(v intstr.IntOrString, path *field.Path) field.ErrorList {
	switch v.Type {
	case intstr.String:
		var errs field.ErrorList
		for _, msg := range validation.IsValidPercent(v.StrVal) {
			errs = append(errs, field.Invalid(path, goSyntax(v), msg))
		}
		return errs
	case intstr.Int:
		return nonNegative(int64(v.IntValue()), path)
	}
	return field.ErrorList{field.Invalid(path, goSyntax(v), "must be an integer or percentage (e.g '5%%')")}
}

// percentOf reads a valid percentage; ok is false for a number or a
// malformed percentage.
func percentOf(v intstr.IntOrString) (int, bool) {
	if v.Type != intstr.String || len(validation.IsValidPercent(v.StrVal)) > 0 {
		return 0, false
	}
	n, _ := strconv.Atoi(strings.TrimSuffix(v.StrVal, "%"))
	return n, true
}

// intOrPercentValue is the number or the percentage's number, for the
// rules that ask whether a bound is zero.
func intOrPercentValue(v intstr.IntOrString) int {
	if n, ok := percentOf(v); ok {
		return n
	}
	return v.IntValue()
}

// notOver100Percent is kube's IsNotMoreThan100Percent.
func notOver100Percent(v intstr.IntOrString, path *field.Path) field.ErrorList {
	if n, ok := percentOf(v); ok && n > 100 {
		return field.ErrorList{field.Invalid(path, goSyntax(v), "must not be greater than 100%")}
	}
	return nil
}

// intOrZero reads an optional bound; kube's internal types hold them
// as values, so a missing one is zero.
func intOrZero(v *intstr.IntOrString) intstr.IntOrString {
	if v == nil {
		return intstr.IntOrString{}
	}
	return *v
}

// selectorImmutable is kube's refusal to change a workload's selector:
// its existing pods would be orphaned or adopted.
func selectorImmutable(sel, old *metav1.LabelSelector, path *field.Path) field.ErrorList {
	if equality.Semantic.DeepEqual(sel, old) {
		return nil
	}
	return field.ErrorList{field.Invalid(path, goSyntax(sel), "field is immutable")}
}

// selectorOf is the workload's selector for matching its template;
// an error is kube's "invalid label selector".
func selectorOf(sel *metav1.LabelSelector, path *field.Path, detail string) (labels.Selector, field.ErrorList) {
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return nil, field.ErrorList{field.Invalid(path, goSyntax(sel), detail)}
	}
	return s, nil
}
