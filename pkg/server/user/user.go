// Package user carries who made a request through the server half: the
// authentication filter puts the caller in the request's context, and
// whatever needs the caller below it (inflight limits, the
// SelfSubjectReview kind) reads it from there, with no HTTP types.
package user

import (
	"context"

	authenticationv1 "k8s.io/api/authentication/v1"
)

// Anonymous is who a request is when the server checks no credentials.
var Anonymous = authenticationv1.UserInfo{Username: "system:anonymous", Groups: []string{"system:unauthenticated"}}

type key struct{}

// WithInfo returns ctx carrying the caller u.
func WithInfo(ctx context.Context, u authenticationv1.UserInfo) context.Context {
	return context.WithValue(ctx, key{}, u)
}

// Caller returns the caller ctx carries, or Anonymous when the server
// does not know who it is.
func Caller(ctx context.Context) authenticationv1.UserInfo {
	if u, ok := From(ctx); ok {
		return u
	}
	return Anonymous
}

// From returns the caller ctx carries, if the server knows who it is.
func From(ctx context.Context) (authenticationv1.UserInfo, bool) {
	u, ok := ctx.Value(key{}).(authenticationv1.UserInfo)
	return u, ok
}
