package registry

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// affinityErrors is kube's validateAffinity, as it runs on a new
// object: node selector terms, weights, and pod (anti-)affinity terms
// with valid selectors and a topology key.
func affinityErrors(a *corev1.Affinity, p *field.Path) field.ErrorList {
	if a == nil {
		return nil
	}
	var errs field.ErrorList
	if na := a.NodeAffinity; na != nil {
		np := p.Child("nodeAffinity")
		if req := na.RequiredDuringSchedulingIgnoredDuringExecution; req != nil {
			errs = append(errs, nodeSelectorErrors(req, np.Child("requiredDuringSchedulingIgnoredDuringExecution"))...)
		}
		pp := np.Child("preferredDuringSchedulingIgnoredDuringExecution")
		for i, t := range na.PreferredDuringSchedulingIgnoredDuringExecution {
			errs = append(errs, weightErrors(t.Weight, pp.Index(i).Child("weight"))...)
			// A preferred term may name label values no node has yet:
			// kube does not check them.
			errs = append(errs, nodeSelectorTermErrors(&t.Preference, false, pp.Index(i).Child("preference"))...)
		}
	}
	if pa := a.PodAffinity; pa != nil {
		errs = append(errs, podAffinityErrors(pa.RequiredDuringSchedulingIgnoredDuringExecution,
			pa.PreferredDuringSchedulingIgnoredDuringExecution, p.Child("podAffinity"))...)
	}
	if pa := a.PodAntiAffinity; pa != nil {
		errs = append(errs, podAffinityErrors(pa.RequiredDuringSchedulingIgnoredDuringExecution,
			pa.PreferredDuringSchedulingIgnoredDuringExecution, p.Child("podAntiAffinity"))...)
	}
	return errs
}

func weightErrors(w int32, p *field.Path) field.ErrorList {
	if w <= 0 || w > 100 {
		return field.ErrorList{field.Invalid(p, w, "must be in the range 1-100")}
	}
	return nil
}

// nodeSelectorErrors is kube's ValidateNodeSelector: at least one term.
func nodeSelectorErrors(s *corev1.NodeSelector, p *field.Path) field.ErrorList {
	tp := p.Child("nodeSelectorTerms")
	if len(s.NodeSelectorTerms) == 0 {
		return field.ErrorList{field.Required(tp, "must have at least one node selector term")}
	}
	var errs field.ErrorList
	for i := range s.NodeSelectorTerms {
		errs = append(errs, nodeSelectorTermErrors(&s.NodeSelectorTerms[i], true, tp.Index(i))...)
	}
	return errs
}

// nodeSelectorTermErrors is kube's ValidateNodeSelectorTerm; values
// says whether label values must be valid.
func nodeSelectorTermErrors(t *corev1.NodeSelectorTerm, values bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, r := range t.MatchExpressions {
		errs = append(errs, nodeSelectorRequirementErrors(r, values, p.Child("matchExpressions").Index(i))...)
	}
	for i, r := range t.MatchFields {
		errs = append(errs, nodeFieldRequirementErrors(r, p.Child("matchFields").Index(i))...)
	}
	return errs
}

func nodeSelectorRequirementErrors(r corev1.NodeSelectorRequirement, values bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	vp := p.Child("values")
	switch r.Operator {
	case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
		if len(r.Values) == 0 {
			errs = append(errs, field.Required(vp, "must be specified when `operator` is 'In' or 'NotIn'"))
		}
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		if len(r.Values) > 0 {
			errs = append(errs, field.Forbidden(vp, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
		}
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if len(r.Values) != 1 {
			errs = append(errs, field.Required(vp, "must be specified single value when `operator` is 'Lt' or 'Gt'"))
		}
	default:
		errs = append(errs, field.Invalid(p.Child("operator"), r.Operator, "not a valid selector operator"))
	}
	errs = append(errs, labelNameErrors(r.Key, p.Child("key"))...)
	if values {
		for i, v := range r.Values {
			for _, msg := range validation.IsValidLabelValue(v) {
				errs = append(errs, field.Invalid(vp.Index(i), v, msg))
			}
		}
	}
	return errs
}

// nodeFieldRequirementErrors is kube's ValidateNodeFieldSelectorRequirement:
// a node may be picked by metadata.name alone, one name at a time.
func nodeFieldRequirementErrors(r corev1.NodeSelectorRequirement, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch r.Operator {
	case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
		if len(r.Values) != 1 {
			errs = append(errs, field.Required(p.Child("values"), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
		}
	default:
		errs = append(errs, field.Invalid(p.Child("operator"), r.Operator, "not a valid selector operator"))
	}
	if r.Key != metav1.ObjectNameField {
		return append(errs, field.Invalid(p.Child("key"), r.Key, "not a valid field selector key"))
	}
	for i, v := range r.Values {
		for _, msg := range validation.IsDNS1123Subdomain(v) {
			errs = append(errs, field.Invalid(p.Child("values").Index(i), v, msg))
		}
	}
	return errs
}

func podAffinityErrors(required []corev1.PodAffinityTerm, preferred []corev1.WeightedPodAffinityTerm, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	rp := p.Child("requiredDuringSchedulingIgnoredDuringExecution")
	for i := range required {
		errs = append(errs, podAffinityTermErrors(&required[i], rp.Index(i))...)
	}
	pp := p.Child("preferredDuringSchedulingIgnoredDuringExecution")
	for i := range preferred {
		errs = append(errs, weightErrors(preferred[i].Weight, pp.Index(i).Child("weight"))...)
		errs = append(errs, podAffinityTermErrors(&preferred[i].PodAffinityTerm, pp.Index(i).Child("podAffinityTerm"))...)
	}
	return errs
}

// podAffinityTermErrors is kube's validatePodAffinityTerm. kube names
// a bad namespace under "namespace", singular, and so does this.
func podAffinityTermErrors(t *corev1.PodAffinityTerm, p *field.Path) field.ErrorList {
	opts := metavalidation.LabelSelectorValidationOptions{}
	errs := metavalidation.ValidateLabelSelector(t.LabelSelector, opts, p.Child("labelSelector"))
	errs = append(errs, metavalidation.ValidateLabelSelector(t.NamespaceSelector, opts, p.Child("namespaceSelector"))...)
	for _, ns := range t.Namespaces {
		for _, msg := range validation.IsDNS1123Label(ns) {
			errs = append(errs, field.Invalid(p.Child("namespace"), ns, msg))
		}
	}
	errs = append(errs, labelKeysErrors(t.MatchLabelKeys, t.LabelSelector, p.Child("matchLabelKeys"))...)
	errs = append(errs, labelKeysErrors(t.MismatchLabelKeys, t.LabelSelector, p.Child("mismatchLabelKeys"))...)
	if t.LabelSelector != nil {
		// A key of matchLabelKeys that the selector names twice (once
		// as written, once as the create merged it in) was in both.
		at := map[string]int{}
		for i, k := range t.MatchLabelKeys {
			at[k] = i
		}
		keys := sets.KeySet(t.LabelSelector.MatchLabels)
		for _, e := range t.LabelSelector.MatchExpressions {
			if i, ok := at[e.Key]; ok && keys.Has(e.Key) {
				// kube indexes the term's path, not matchLabelKeys.
				errs = append(errs, field.Invalid(p.Index(i), e.Key, "exists in both matchLabelKeys and labelSelector"))
			}
			keys.Insert(e.Key)
		}
	}
	mismatch := sets.New(t.MismatchLabelKeys...)
	for i, k := range t.MatchLabelKeys {
		if mismatch.Has(k) {
			errs = append(errs, field.Invalid(p.Child("matchLabelKeys").Index(i), k, "exists in both matchLabelKeys and mismatchLabelKeys"))
		}
	}
	if t.TopologyKey == "" {
		errs = append(errs, field.Required(p.Child("topologyKey"), "can not be empty"))
	}
	return append(errs, labelNameErrors(t.TopologyKey, p.Child("topologyKey"))...)
}

// labelKeysErrors is kube's validateLabelKeys: label names, and only
// with a selector to add them to.
func labelKeysErrors(keys []string, sel *metav1.LabelSelector, p *field.Path) field.ErrorList {
	if len(keys) == 0 {
		return nil
	}
	if sel == nil {
		return field.ErrorList{field.Forbidden(p, "must not be specified when labelSelector is not set")}
	}
	var errs field.ErrorList
	for i, k := range keys {
		errs = append(errs, labelNameErrors(k, p.Index(i))...)
	}
	return errs
}

// mergeAffinityLabelKeys is what kube's pod strategy does on create:
// each key of a pod (anti-)affinity term's matchLabelKeys joins its
// selector as key In (the pod's value), each of mismatchLabelKeys as
// NotIn, for the keys the pod has.
func mergeAffinityLabelKeys(pod *corev1.Pod) {
	a := pod.Spec.Affinity
	if a == nil {
		return
	}
	var terms []*corev1.PodAffinityTerm
	if pa := a.PodAffinity; pa != nil {
		for i := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, &pa.PreferredDuringSchedulingIgnoredDuringExecution[i].PodAffinityTerm)
		}
		for i := range pa.RequiredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, &pa.RequiredDuringSchedulingIgnoredDuringExecution[i])
		}
	}
	if pa := a.PodAntiAffinity; pa != nil {
		for i := range pa.PreferredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, &pa.PreferredDuringSchedulingIgnoredDuringExecution[i].PodAffinityTerm)
		}
		for i := range pa.RequiredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, &pa.RequiredDuringSchedulingIgnoredDuringExecution[i])
		}
	}
	for _, t := range terms {
		// A nil selector matches nothing, whatever is added.
		if t.LabelSelector == nil {
			continue
		}
		for _, k := range []struct {
			keys []string
			op   metav1.LabelSelectorOperator
		}{{t.MatchLabelKeys, metav1.LabelSelectorOpIn}, {t.MismatchLabelKeys, metav1.LabelSelectorOpNotIn}} {
			for _, key := range k.keys {
				if v, ok := pod.Labels[key]; ok {
					t.LabelSelector.MatchExpressions = append(t.LabelSelector.MatchExpressions,
						metav1.LabelSelectorRequirement{Key: key, Operator: k.op, Values: []string{v}})
				}
			}
		}
	}
}
