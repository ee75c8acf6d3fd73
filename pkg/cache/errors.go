package cache

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
)

// typeError is an object of another type than the cache holds: the
// ListerWatcher and the cache's type parameter disagree.
type typeError struct {
	got  runtime.Object
	want any
}

func (e *typeError) Error() string {
	return fmt.Sprintf("cache: got a %T, want a %T", e.got, e.want)
}

// eventError turns a watch ERROR event's object into an error that
// apierrors can classify (410 Expired in particular).
func eventError(o runtime.Object) error {
	if o == nil {
		return fmt.Errorf("cache: watch ERROR event without an object")
	}
	return apierrors.FromObject(o)
}
