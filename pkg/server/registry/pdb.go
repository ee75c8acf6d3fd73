package registry

import (
	"strconv"
	"strings"
	"time"

	policyv1 "k8s.io/api/policy/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// pdbStrategy holds PodDisruptionBudgets to kube's rules: the spec is
// validated, the status starts empty and is written by the disruption
// controller (and by evictions) through the status subresource.
type pdbStrategy struct{}

func (pdbStrategy) PrepareForCreate(_ time.Time, obj map[string]any) field.ErrorList {
	// A new budget has no status: the disruption controller computes it.
	if err := setField(obj, "status", &policyv1.PodDisruptionBudgetStatus{}); err != nil {
		return field.ErrorList{field.InternalError(field.NewPath("status"), err)}
	}
	return pdbSpecErrors(obj)
}

func (pdbStrategy) PrepareForUpdate(_ time.Time, obj, old map[string]any) field.ErrorList {
	obj["status"] = old["status"]
	return pdbSpecErrors(obj)
}

// PrepareForStatusUpdate keeps the spec and checks the counts, as
// kube's status strategy does for policy/v1.
func (pdbStrategy) PrepareForStatusUpdate(obj, old map[string]any) field.ErrorList {
	keepSpec(obj, old)
	st, err := fromField[policyv1.PodDisruptionBudgetStatus](obj, "status")
	if err != nil {
		return field.ErrorList{field.Invalid(field.NewPath("status"), nil, err.Error())}
	}
	path := field.NewPath("status")
	errs := metav1validation.ValidateConditions(st.Conditions, path.Child("conditions"))
	for _, c := range []struct {
		name string
		v    int32
	}{
		{"disruptionsAllowed", st.DisruptionsAllowed}, {"currentHealthy", st.CurrentHealthy},
		{"desiredHealthy", st.DesiredHealthy}, {"expectedPods", st.ExpectedPods},
	} {
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(c.v), path.Child(c.name))...)
	}
	return errs
}

// pdbSpecErrors is kube's ValidatePodDisruptionBudgetSpec.
func pdbSpecErrors(obj map[string]any) field.ErrorList {
	path := field.NewPath("spec")
	spec, err := fromField[policyv1.PodDisruptionBudgetSpec](obj, "spec")
	if err != nil {
		return field.ErrorList{field.Invalid(path, nil, err.Error())}
	}
	var errs field.ErrorList
	if spec.MinAvailable != nil && spec.MaxUnavailable != nil {
		errs = append(errs, field.Invalid(path, spec, "minAvailable and maxUnavailable cannot be both set"))
	}
	if spec.MinAvailable != nil {
		errs = append(errs, intOrPercentErrors(*spec.MinAvailable, path.Child("minAvailable"))...)
	}
	if spec.MaxUnavailable != nil {
		errs = append(errs, intOrPercentErrors(*spec.MaxUnavailable, path.Child("maxUnavailable"))...)
	}
	errs = append(errs, metav1validation.ValidateLabelSelector(spec.Selector, metav1validation.LabelSelectorValidationOptions{}, path.Child("selector"))...)
	if p := spec.UnhealthyPodEvictionPolicy; p != nil && *p != policyv1.IfHealthyBudget && *p != policyv1.AlwaysAllow {
		errs = append(errs, field.NotSupported(path.Child("unhealthyPodEvictionPolicy"), *p, []string{string(policyv1.AlwaysAllow), string(policyv1.IfHealthyBudget)}))
	}
	return errs
}

// intOrPercentErrors is kube's ValidatePositiveIntOrPercent followed by
// IsNotMoreThan100Percent.
func intOrPercentErrors(v intstr.IntOrString, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch v.Type {
	case intstr.String:
		for _, msg := range validation.IsValidPercent(v.StrVal) {
			errs = append(errs, field.Invalid(path, v, msg))
		}
		if len(errs) == 0 {
			if n, _ := strconv.Atoi(strings.TrimSuffix(v.StrVal, "%")); n > 100 {
				errs = append(errs, field.Invalid(path, v, "must not be greater than 100%"))
			}
		}
	case intstr.Int:
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(v.IntVal), path)...)
	}
	return errs
}

// pdbColumns are kube's PodDisruptionBudget columns after Name.
func pdbColumns() []Column {
	return []Column{
		{Name: "Min Available", Type: "string", Description: "The minimum number of pods that must be available.", Value: pdbBound("minAvailable")},
		{Name: "Max Unavailable", Type: "string", Description: "The maximum number of pods that may be unavailable.", Value: pdbBound("maxUnavailable")},
		{Name: "Allowed Disruptions", Type: "integer", Description: "Calculated number of pods that may be disrupted at this time.", Value: pdbAllowed},
	}
}

// pdbBound prints spec[key] as kube does: the number or percentage, or
// N/A when unset.
func pdbBound(key string) func(map[string]any) any {
	return func(obj map[string]any) any {
		switch v := nestedMap(obj, false, "spec")[key].(type) {
		case string:
			return v
		case int64:
			return strconv.FormatInt(v, 10)
		case float64:
			return strconv.FormatInt(int64(v), 10)
		}
		return "N/A"
	}
}

func pdbAllowed(obj map[string]any) any {
	switch v := nestedMap(obj, false, "status")["disruptionsAllowed"].(type) {
	case int64:
		return v
	case float64:
		return int64(v)
	}
	return int64(0)
}
