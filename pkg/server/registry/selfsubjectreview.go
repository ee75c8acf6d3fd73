package registry

import (
	"context"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/server/user"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// selfSubjectReviewStrategy answers a SelfSubjectReview create with the
// caller's identity, which is what kubectl auth whoami prints. Nothing
// is stored.
type selfSubjectReviewStrategy struct{}

func (selfSubjectReviewStrategy) Create(ctx context.Context, obj map[string]any) (map[string]any, error) {
	u := user.Caller(ctx)
	return map[string]any{
		"apiVersion": obj["apiVersion"],
		"kind":       obj["kind"],
		"metadata":   map[string]any{"creationTimestamp": nil},
		"status":     map[string]any{"userInfo": u},
	}, nil
}

// PrepareForCreate has nothing to set: Create builds the answer.
func (selfSubjectReviewStrategy) PrepareForCreate(time.Time, map[string]any) field.ErrorList {
	return nil
}

// PrepareForUpdate is never called: the kind serves create alone.
func (selfSubjectReviewStrategy) PrepareForUpdate(time.Time, map[string]any, map[string]any) field.ErrorList {
	return nil
}
