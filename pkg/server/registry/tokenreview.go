package registry

import (
	"context"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TokenReviewer authenticates a bearer token as the server authenticates
// the token of a request, for TokenReviews: audiences are those the
// token must be meant for, none meaning the server's own.
type TokenReviewer interface {
	ReviewToken(ctx context.Context, token string, audiences []string) authenticationv1.TokenReviewStatus
}

// tokenReviewResource is authentication.k8s.io/v1's TokenReview: a
// question put to the server's authenticator (o.TokenReviewer), answered
// on create and never stored.
func tokenReviewResource(o BuiltinOptions) *Resource {
	return &Resource{
		Group: authenticationv1.GroupName, Version: "v1", Kind: "TokenReview", ListKind: "TokenReviewList",
		Plural: "tokenreviews", Singular: "tokenreview",
		Typed: true, Verbs: []string{"create"}, Strategy: tokenReviewStrategy{reviewer: o.TokenReviewer},
	}
}

// tokenReviewStrategy answers a TokenReview with what the reviewer says
// of its token; without a reviewer the review comes back as sent, as
// kube-apiserver answers it without a token authenticator.
type tokenReviewStrategy struct {
	reviewer TokenReviewer
}

func (s tokenReviewStrategy) Create(ctx context.Context, obj map[string]any) (map[string]any, error) {
	var tr authenticationv1.TokenReview
	if errs := toTyped(obj, &tr); len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	if tr.Spec.Token == "" {
		return nil, &BadRequestError{Message: "token is required for TokenReview in authentication"}
	}
	// What the server owns in metadata is not taken from the request.
	tr.CreationTimestamp = metav1.Time{}
	tr.UID, tr.DeletionTimestamp, tr.DeletionGracePeriodSeconds = "", nil, nil
	if s.reviewer != nil {
		// kube sets what the authenticator said over the status as
		// sent: whether it authenticated, its error when it gave one,
		// and the user and audiences when it found them.
		got := s.reviewer.ReviewToken(ctx, tr.Spec.Token, tr.Spec.Audiences)
		tr.Status.Authenticated = got.Authenticated
		if got.Error != "" {
			tr.Status.Error = got.Error
		}
		if got.Authenticated {
			tr.Status.User, tr.Status.Audiences = got.User, got.Audiences
		}
	}
	answer, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&tr)
	if err != nil {
		return nil, err
	}
	// Written as kube writes an unset time: null.
	nestedMap(answer, true, "metadata")["creationTimestamp"] = nil
	return answer, nil
}

// PrepareForCreate has nothing to set: Create builds the answer.
func (tokenReviewStrategy) PrepareForCreate(time.Time, map[string]any) field.ErrorList { return nil }

// PrepareForUpdate is never called: the kind serves create alone.
func (tokenReviewStrategy) PrepareForUpdate(time.Time, map[string]any, map[string]any) field.ErrorList {
	return nil
}
