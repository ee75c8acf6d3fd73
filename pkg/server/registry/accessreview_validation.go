package registry

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/setpoint-dev/setpoint/pkg/server/authorizer"
)

// The access reviews' rules, ported from kube's
// pkg/apis/authorization/validation with its paths and messages, and
// the attributes a review asks about, as kube's
// pkg/registry/authorization/util builds them.

// accessReviewSpecErrors checks a SubjectAccessReview's (or
// LocalSubjectAccessReview's) spec: what it asks, and of whom.
func accessReviewSpecErrors(spec authorizationv1.SubjectAccessReviewSpec) field.ErrorList {
	errs := attributesChoiceErrors(spec.ResourceAttributes, spec.NonResourceAttributes)
	if spec.User == "" && len(spec.Groups) == 0 {
		errs = append(errs, field.Invalid(field.NewPath("spec", "user"), spec.User, "at least one of user or group must be specified"))
	}
	return append(errs, selectorErrors(spec.ResourceAttributes)...)
}

// selfAccessReviewSpecErrors checks a SelfSubjectAccessReview's spec.
func selfAccessReviewSpecErrors(ra *authorizationv1.ResourceAttributes, nra *authorizationv1.NonResourceAttributes) field.ErrorList {
	return append(attributesChoiceErrors(ra, nra), selectorErrors(ra)...)
}

// attributesChoiceErrors requires exactly one of resource and
// non-resource attributes.
func attributesChoiceErrors(ra *authorizationv1.ResourceAttributes, nra *authorizationv1.NonResourceAttributes) field.ErrorList {
	spec := field.NewPath("spec")
	switch {
	case ra != nil && nra != nil:
		return field.ErrorList{field.Invalid(spec.Child("nonResourceAttributes"), internalNonResource(nra), "cannot be specified in combination with resourceAttributes")}
	case ra == nil && nra == nil:
		// kube reports the missing non-resource attributes, nil, which
		// v1.33 prints as the string "null".
		return field.ErrorList{field.Invalid(spec.Child("resourceAttributes"), "null", "exactly one of nonResourceAttributes or resourceAttributes must be specified")}
	}
	return nil
}

// selectorErrors checks the field and label selectors of resource
// attributes: a raw selector or requirements, not both, and well-formed
// requirements (operators kube does not know yet are let through, for
// newer clients).
func selectorErrors(ra *authorizationv1.ResourceAttributes) field.ErrorList {
	if ra == nil {
		return nil
	}
	// kube names these paths as one dotted child.
	p := field.NewPath("spec.resourceAttributes")
	var errs field.ErrorList
	if fs := ra.FieldSelector; fs != nil {
		fp := p.Child("fieldSelector")
		errs = append(errs, rawOrRequirementsErrors(fp, fs.RawSelector, len(fs.Requirements))...)
		opts := metav1validation.FieldSelectorValidationOptions{AllowUnknownOperatorInRequirement: true}
		for i, r := range fs.Requirements {
			errs = append(errs, metav1validation.ValidateFieldSelectorRequirement(r, opts, fp.Child("requirements").Index(i))...)
		}
	}
	if ls := ra.LabelSelector; ls != nil {
		lp := p.Child("labelSelector")
		errs = append(errs, rawOrRequirementsErrors(lp, ls.RawSelector, len(ls.Requirements))...)
		opts := metav1validation.LabelSelectorValidationOptions{AllowUnknownOperatorInRequirement: true}
		for i, r := range ls.Requirements {
			errs = append(errs, metav1validation.ValidateLabelSelectorRequirement(r, opts, lp.Child("requirements").Index(i))...)
		}
	}
	return errs
}

func rawOrRequirementsErrors(p *field.Path, raw string, requirements int) field.ErrorList {
	switch {
	case raw != "" && requirements > 0:
		return field.ErrorList{field.Invalid(p.Child("rawSelector"), raw, "may not specified at the same time as requirements")}
	case raw == "" && requirements == 0:
		return field.ErrorList{field.Required(p.Child("requirements"), fmt.Sprintf("when %s is specified, requirements or rawSelector is required", p))}
	}
	return nil
}

// emptyMetaErrors requires a review's metadata to be empty but for its
// managed fields (the server records them) and, for a
// LocalSubjectAccessReview (namespaced), its namespace.
func emptyMetaErrors(meta metav1.ObjectMeta, namespaced bool) field.ErrorList {
	rest := meta
	rest.ManagedFields = nil
	detail := "must be empty"
	if namespaced {
		rest.Namespace = ""
		detail = "must be empty except for namespace"
	}
	if apiequality.Semantic.DeepEqual(metav1.ObjectMeta{}, rest) {
		return nil
	}
	// kube prints the managed fields' times as it made them, in UTC;
	// decoded they would be local.
	shown := meta
	shown.ManagedFields = slices.Clone(meta.ManagedFields)
	for i, mf := range shown.ManagedFields {
		if mf.Time != nil {
			t := metav1.NewTime(mf.Time.UTC())
			shown.ManagedFields[i].Time = &t
		}
	}
	return field.ErrorList{field.Invalid(field.NewPath("metadata"), goSyntax(shown), detail)}
}

// internalNonResource is non-resource attributes as kube v1.33 prints
// them in an error: Go syntax of its internal type.
func internalNonResource(nra *authorizationv1.NonResourceAttributes) printedAs {
	return printedAs(fmt.Sprintf("authorization.NonResourceAttributes{Path:%q, Verb:%q}", nra.Path, nra.Verb))
}

// specAttributes is what a SubjectAccessReview asks: its user, with the
// uid, groups and extra the spec gives, and the attributes.
func specAttributes(spec authorizationv1.SubjectAccessReviewSpec) authorizer.Attributes {
	u := authenticationv1.UserInfo{Username: spec.User, UID: spec.UID, Groups: spec.Groups}
	if spec.Extra != nil {
		u.Extra = make(map[string]authenticationv1.ExtraValue, len(spec.Extra))
		for k, v := range spec.Extra {
			u.Extra[k] = authenticationv1.ExtraValue(v)
		}
	}
	return attributes(u, spec.ResourceAttributes, spec.NonResourceAttributes)
}

// attributes asks whether u may do what ra or, without it, nra say. An
// empty version is every version.
func attributes(u authenticationv1.UserInfo, ra *authorizationv1.ResourceAttributes, nra *authorizationv1.NonResourceAttributes) authorizer.Attributes {
	if ra == nil {
		return authorizer.Attributes{User: u, Path: nra.Path, Verb: nra.Verb}
	}
	version := ra.Version
	if version == "" {
		version = "*"
	}
	return authorizer.Attributes{
		User: u, ResourceRequest: true, Verb: ra.Verb, Namespace: ra.Namespace,
		APIGroup: ra.Group, APIVersion: version, Resource: ra.Resource, Subresource: ra.Subresource, Name: ra.Name,
	}
}

// evaluationError is a review's status.evaluationError: the authorizer's
// error and what of the selectors could not be read, which the decision
// then ignored ("partially" when some requirements could).
func evaluationError(err error, ra *authorizationv1.ResourceAttributes) string {
	var msgs []string
	if err != nil {
		msgs = append(msgs, err.Error())
	}
	if ra != nil && ra.FieldSelector != nil {
		if n, err := fieldRequirements(ra.FieldSelector); err != nil {
			msgs = append(msgs, ignoredSelector("fieldSelector", n))
		}
	}
	if ra != nil && ra.LabelSelector != nil {
		if n, err := labelRequirements(ra.LabelSelector); err != nil {
			msgs = append(msgs, ignoredSelector("labelSelector", n))
		}
	}
	return strings.Join(msgs, "; ")
}

func ignoredSelector(name string, readable int) string {
	if readable > 0 {
		return "spec.resourceAttributes." + name + " partially ignored due to parse error"
	}
	return "spec.resourceAttributes." + name + " ignored due to parse error"
}

// fieldRequirements reads a field selector as kube does: the raw form
// parsed, or else the requirements one by one (single-valued In and
// NotIn only). It returns how many requirements it could read and what
// it could not.
func fieldRequirements(fs *authorizationv1.FieldSelectorAttributes) (int, error) {
	if len(fs.Requirements) == 0 {
		if fs.RawSelector == "" {
			return 0, nil
		}
		sel, err := fields.ParseSelector(fs.RawSelector)
		if err != nil {
			return 0, err
		}
		return len(sel.Requirements()), nil
	}
	var n int
	var errs []error
	for _, r := range fs.Requirements {
		switch {
		case len(r.Values) > 1:
			errs = append(errs, errors.New("fieldSelectors do not yet support multiple values"))
		case r.Operator != metav1.FieldSelectorOpIn && r.Operator != metav1.FieldSelectorOpNotIn:
			errs = append(errs, fmt.Errorf("%q is not a supported field selector operator", r.Operator))
		case len(r.Values) != 1:
			errs = append(errs, errors.New("fieldSelectors in and not in must have one value"))
		default:
			n++
		}
	}
	return n, errors.Join(errs...)
}

// labelRequirements reads a label selector as kube does: the raw form
// parsed, or else the requirements one by one.
func labelRequirements(ls *authorizationv1.LabelSelectorAttributes) (int, error) {
	if len(ls.Requirements) == 0 {
		if ls.RawSelector == "" {
			return 0, nil
		}
		sel, err := labels.Parse(ls.RawSelector)
		if err != nil {
			return 0, err
		}
		reqs, _ := sel.Requirements()
		return len(reqs), nil
	}
	ops := map[metav1.LabelSelectorOperator]selection.Operator{
		metav1.LabelSelectorOpIn: selection.In, metav1.LabelSelectorOpNotIn: selection.NotIn,
		metav1.LabelSelectorOpExists: selection.Exists, metav1.LabelSelectorOpDoesNotExist: selection.DoesNotExist,
	}
	var n int
	var errs []error
	for _, r := range ls.Requirements {
		op, ok := ops[r.Operator]
		if !ok {
			errs = append(errs, fmt.Errorf("%q is not a valid label selector operator", r.Operator))
			continue
		}
		values := r.Values
		if len(values) == 0 {
			values = nil
		}
		if _, err := labels.NewRequirement(r.Key, op, values); err != nil {
			errs = append(errs, err)
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}
