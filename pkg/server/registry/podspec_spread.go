package registry

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// spreadErrors is kube's validateTopologySpreadConstraints as it runs
// on a new object.
func spreadErrors(cs []corev1.TopologySpreadConstraint, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, c := range cs {
		p := path.Index(i)
		if c.MaxSkew <= 0 {
			errs = append(errs, field.Invalid(p.Child("maxSkew"), int64(c.MaxSkew), "must be greater than zero"))
		}
		if c.TopologyKey == "" {
			errs = append(errs, field.Required(p.Child("topologyKey"), "can not be empty"))
		}
		errs = append(errs, enumErrors(p.Child("whenUnsatisfiable"), c.WhenUnsatisfiable, "DoNotSchedule", "ScheduleAnyway")...)
		// A {topologyKey, whenUnsatisfiable} pair is one kind of
		// constraint: the first of two alike is reported.
		for _, later := range cs[i+1:] {
			if later.TopologyKey == c.TopologyKey && later.WhenUnsatisfiable == c.WhenUnsatisfiable {
				errs = append(errs, field.Duplicate(p.Child("{topologyKey, whenUnsatisfiable}"), fmt.Sprintf("{%v, %v}", c.TopologyKey, c.WhenUnsatisfiable)))
				break
			}
		}
		if m := c.MinDomains; m != nil {
			mp := p.Child("minDomains")
			if *m <= 0 {
				errs = append(errs, field.Invalid(mp, int64(*m), "must be greater than zero"))
			}
			if c.WhenUnsatisfiable != corev1.DoNotSchedule {
				errs = append(errs, field.Invalid(mp, m, fmt.Sprintf("can only use minDomains if whenUnsatisfiable=%s, not %s", corev1.DoNotSchedule, c.WhenUnsatisfiable)))
			}
		}
		if c.NodeAffinityPolicy != nil {
			errs = append(errs, enumErrors(p.Child("nodeAffinityPolicy"), *c.NodeAffinityPolicy, "Honor", "Ignore")...)
		}
		if c.NodeTaintsPolicy != nil {
			errs = append(errs, enumErrors(p.Child("nodeTaintsPolicy"), *c.NodeTaintsPolicy, "Honor", "Ignore")...)
		}
		errs = append(errs, spreadLabelKeysErrors(&c, p.Child("matchLabelKeys"))...)
		errs = append(errs, metavalidation.ValidateLabelSelector(c.LabelSelector, metavalidation.LabelSelectorValidationOptions{}, p.Child("labelSelector"))...)
	}
	return errs
}

// enumErrors is kube's NotSupported check of a value with no
// Required case: an empty value is just not one of the allowed.
func enumErrors[T ~string](p *field.Path, v T, allowed ...string) field.ErrorList {
	if sets.New(allowed...).Has(string(v)) {
		return nil
	}
	return field.ErrorList{field.NotSupported(p, v, allowed)}
}

// spreadLabelKeysErrors is kube's validateMatchLabelKeysInTopologySpread:
// label names that the selector does not already use.
func spreadLabelKeysErrors(c *corev1.TopologySpreadConstraint, p *field.Path) field.ErrorList {
	if len(c.MatchLabelKeys) == 0 {
		return nil
	}
	var errs field.ErrorList
	used := sets.New[string]()
	if s := c.LabelSelector; s != nil {
		used.Insert(sets.List(sets.KeySet(s.MatchLabels))...)
		for _, e := range s.MatchExpressions {
			used.Insert(e.Key)
		}
	} else {
		errs = append(errs, field.Forbidden(p, "must not be specified when labelSelector is not set"))
	}
	for i, k := range c.MatchLabelKeys {
		errs = append(errs, labelNameErrors(k, p.Index(i))...)
		if used.Has(k) {
			errs = append(errs, field.Invalid(p.Index(i), k, "exists in both matchLabelKeys and labelSelector"))
		}
	}
	return errs
}
