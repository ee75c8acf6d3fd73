package registry

import (
	"context"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/setpoint-dev/setpoint/pkg/server/authorizer"
	"github.com/setpoint-dev/setpoint/pkg/server/user"
)

// authorizationGroup is the API group of the access reviews.
const authorizationGroup = authorizationv1.GroupName

// accessReviewBuiltins are authorization.k8s.io/v1's kinds: questions
// put to the server's authorizer (o.Authorizer, o.Rules; without them
// every request is allowed, as under kube's AlwaysAllow mode), answered
// on create and never stored.
func accessReviewBuiltins(o BuiltinOptions) []*Resource {
	a := accessReviewer{authz: o.Authorizer, rules: o.Rules}
	review := func(kind, plural string, namespaced bool, s Strategy) *Resource {
		return &Resource{
			Group: authorizationGroup, Version: "v1", Kind: kind, ListKind: kind + "List",
			Plural: plural, Singular: singularOf(plural), Namespaced: namespaced,
			Typed: true, Verbs: []string{"create"}, Strategy: s,
		}
	}
	return []*Resource{
		review("LocalSubjectAccessReview", "localsubjectaccessreviews", true, localSubjectAccessReviewStrategy{accessReviewer: a}),
		review("SelfSubjectAccessReview", "selfsubjectaccessreviews", false, selfSubjectAccessReviewStrategy{accessReviewer: a}),
		review("SelfSubjectRulesReview", "selfsubjectrulesreviews", false, selfSubjectRulesReviewStrategy{accessReviewer: a}),
		review("SubjectAccessReview", "subjectaccessreviews", false, subjectAccessReviewStrategy{accessReviewer: a}),
	}
}

// singularOf is a review's singular name: its plural without the s.
func singularOf(plural string) string { return plural[:len(plural)-1] }

// accessReviewer answers the reviews from the server's authorizer; nil
// parts allow everything.
type accessReviewer struct {
	authz authorizer.Authorizer
	rules authorizer.RuleResolver
}

// authorize decides a, as AlwaysAllow does when there is no authorizer.
func (r accessReviewer) authorize(ctx context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	if r.authz == nil {
		return authorizer.Allow, "", nil
	}
	return r.authz.Authorize(ctx, a)
}

// rulesFor lists u's rules in namespace; without a resolver, every verb
// on everything, as AlwaysAllow lists them.
func (r accessReviewer) rulesFor(ctx context.Context, u authenticationv1.UserInfo, namespace string) ([]rbacv1.PolicyRule, error) {
	if r.rules == nil {
		return fullAuthority, nil
	}
	return r.rules.RulesFor(ctx, u, namespace)
}

// answer decides the review of a and returns obj with its status: the
// request as sent (managed fields included), answered, as kube returns
// it. selectors are the review's, for the evaluation error.
func (r accessReviewer) answer(ctx context.Context, obj map[string]any, a authorizer.Attributes, ra *authorizationv1.ResourceAttributes) (map[string]any, error) {
	d, reason, err := r.authorize(ctx, a)
	st := authorizationv1.SubjectAccessReviewStatus{
		Allowed: d == authorizer.Allow, Denied: d == authorizer.Deny, Reason: reason,
		EvaluationError: evaluationError(err, ra),
	}
	status, cerr := runtime.DefaultUnstructuredConverter.ToUnstructured(&st)
	if cerr != nil {
		return nil, cerr
	}
	obj["status"] = status
	servedMeta(obj)
	return obj, nil
}

// servedMeta makes obj's metadata what kube serves for an object that is
// never stored: creationTimestamp null, as its Go type writes a zero
// time.
func servedMeta(obj map[string]any) {
	meta := nestedMap(obj, true, "metadata")
	if _, ok := meta["creationTimestamp"]; !ok {
		meta["creationTimestamp"] = nil
	}
}

// reviewKind is the kind kube's access reviews name in a 422: the group
// alone, as the decoded internal object has lost its kind.
var reviewKind = schema.GroupKind{Group: authorizationGroup}

// invalidReview refuses a review with errs, or returns nil.
func invalidReview(errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	return &InvalidError{Kind: reviewKind, Errs: errs}
}

// subjectAccessReviewStrategy answers whether the user in the spec may
// do what the spec asks.
type subjectAccessReviewStrategy struct {
	answersCreate
	accessReviewer
}

func (s subjectAccessReviewStrategy) Create(ctx context.Context, obj map[string]any) (map[string]any, error) {
	var sar authorizationv1.SubjectAccessReview
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, &sar); err != nil {
		return nil, err
	}
	errs := accessReviewSpecErrors(sar.Spec)
	errs = append(errs, emptyMetaErrors(sar.ObjectMeta, false)...)
	if err := invalidReview(errs); err != nil {
		return nil, err
	}
	return s.answer(ctx, obj, specAttributes(sar.Spec), sar.Spec.ResourceAttributes)
}

// localSubjectAccessReviewStrategy is a SubjectAccessReview within the
// namespace of the URL.
type localSubjectAccessReviewStrategy struct {
	answersCreate
	accessReviewer
}

func (s localSubjectAccessReviewStrategy) Create(ctx context.Context, obj map[string]any) (map[string]any, error) {
	var sar authorizationv1.LocalSubjectAccessReview
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, &sar); err != nil {
		return nil, err
	}
	// The store has set metadata.namespace to the URL's, or refused a
	// different one.
	errs := accessReviewSpecErrors(sar.Spec)
	errs = append(errs, emptyMetaErrors(sar.ObjectMeta, true)...)
	if ra := sar.Spec.ResourceAttributes; ra != nil && ra.Namespace != sar.Namespace {
		errs = append(errs, field.Invalid(field.NewPath("spec.resourceAttributes.namespace"), ra.Namespace, "must match metadata.namespace"))
	}
	if nra := sar.Spec.NonResourceAttributes; nra != nil {
		errs = append(errs, field.Invalid(field.NewPath("spec.nonResourceAttributes"), internalNonResource(nra), "disallowed on this kind of request"))
	}
	if err := invalidReview(errs); err != nil {
		return nil, err
	}
	return s.answer(ctx, obj, specAttributes(sar.Spec), sar.Spec.ResourceAttributes)
}

// selfSubjectAccessReviewStrategy answers whether the caller may do what
// the spec asks.
type selfSubjectAccessReviewStrategy struct {
	answersCreate
	accessReviewer
}

func (s selfSubjectAccessReviewStrategy) Create(ctx context.Context, obj map[string]any) (map[string]any, error) {
	var sar authorizationv1.SelfSubjectAccessReview
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, &sar); err != nil {
		return nil, err
	}
	errs := selfAccessReviewSpecErrors(sar.Spec.ResourceAttributes, sar.Spec.NonResourceAttributes)
	errs = append(errs, emptyMetaErrors(sar.ObjectMeta, false)...)
	if err := invalidReview(errs); err != nil {
		return nil, err
	}
	a := attributes(user.Caller(ctx), sar.Spec.ResourceAttributes, sar.Spec.NonResourceAttributes)
	return s.answer(ctx, obj, a, sar.Spec.ResourceAttributes)
}

// selfSubjectRulesReviewStrategy lists the rules the caller holds in the
// spec's namespace. kube answers with a new review: the request's spec
// and metadata are not in it.
type selfSubjectRulesReviewStrategy struct {
	answersCreate
	accessReviewer
}

func (s selfSubjectRulesReviewStrategy) Create(ctx context.Context, obj map[string]any) (map[string]any, error) {
	var req authorizationv1.SelfSubjectRulesReview
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, &req); err != nil {
		return nil, err
	}
	u := user.Caller(ctx)
	if req.Spec.Namespace == "" {
		return nil, &BadRequestError{Message: "no namespace on request"}
	}
	rules, err := s.rulesFor(ctx, u, req.Spec.Namespace)
	st := authorizationv1.SubjectRulesReviewStatus{
		ResourceRules:    []authorizationv1.ResourceRule{},
		NonResourceRules: []authorizationv1.NonResourceRule{},
	}
	for _, r := range rules {
		// A rule naming both (which validation refuses) counts as both,
		// as in kube.
		if len(r.Resources) > 0 {
			st.ResourceRules = append(st.ResourceRules, authorizationv1.ResourceRule{
				Verbs: r.Verbs, APIGroups: r.APIGroups, Resources: r.Resources, ResourceNames: r.ResourceNames,
			})
		}
		if len(r.NonResourceURLs) > 0 {
			st.NonResourceRules = append(st.NonResourceRules, authorizationv1.NonResourceRule{
				Verbs: r.Verbs, NonResourceURLs: r.NonResourceURLs,
			})
		}
	}
	if err != nil {
		// RBAC lists what it could resolve and is never incomplete.
		st.EvaluationError = err.Error()
	}
	answer, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&authorizationv1.SelfSubjectRulesReview{Status: st})
	if err != nil {
		return nil, err
	}
	answer["apiVersion"], answer["kind"] = authorizationv1.SchemeGroupVersion.String(), "SelfSubjectRulesReview"
	servedMeta(answer)
	if _, ok := answer["spec"]; !ok {
		answer["spec"] = map[string]any{}
	}
	return answer, nil
}

// answersCreate is embedded by the strategies of kinds a Creater answers:
// the store prepares nothing for them.
type answersCreate struct{}

func (answersCreate) PrepareForCreate(time.Time, map[string]any) field.ErrorList { return nil }

// PrepareForUpdate is never called: such kinds serve create alone.
func (answersCreate) PrepareForUpdate(time.Time, map[string]any, map[string]any) field.ErrorList {
	return nil
}
