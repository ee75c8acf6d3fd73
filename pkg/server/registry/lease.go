package registry

import (
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// leaseStrategy holds Leases to kube-apiserver v1.33's rules. Coordinated
// leader election is off by default there (a beta gate), so a write's
// strategy and preferredHolder are dropped unless the stored lease
// already has them, and no write can set them.
type leaseStrategy struct{}

func (leaseStrategy) PrepareForCreate(_ time.Time, obj map[string]any) field.ErrorList {
	spec := nestedMap(obj, false, "spec")
	delete(spec, "strategy")
	delete(spec, "preferredHolder")
	return leaseSpecErrors(spec)
}

func (leaseStrategy) PrepareForUpdate(_ time.Time, obj, old map[string]any) field.ErrorList {
	spec, oldSpec := nestedMap(obj, false, "spec"), nestedMap(old, false, "spec")
	for _, k := range []string{"strategy", "preferredHolder"} {
		if _, kept := oldSpec[k]; !kept {
			delete(spec, k)
		}
	}
	return leaseSpecErrors(spec)
}

// leaseSpecErrors checks the counts of a lease's spec: a lease lasts a
// positive time and has changed hands a non-negative number of times.
func leaseSpecErrors(spec map[string]any) field.ErrorList {
	path := field.NewPath("spec")
	var errs field.ErrorList
	if v, ok := spec["leaseDurationSeconds"]; ok && v != nil {
		if n := int32(intField(v)); n <= 0 {
			errs = append(errs, field.Invalid(path.Child("leaseDurationSeconds"), n, "must be greater than 0"))
		}
	}
	if v, ok := spec["leaseTransitions"]; ok && v != nil {
		if n := int32(intField(v)); n < 0 {
			errs = append(errs, field.Invalid(path.Child("leaseTransitions"), n, "must be greater than or equal to 0"))
		}
	}
	return errs
}
