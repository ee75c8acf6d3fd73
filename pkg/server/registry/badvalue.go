package registry

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
)

// kubeValue is an invalid value shown in an error message the way
// kube-apiserver v1.33 shows it. That version prints a struct through
// its String method or else as Go syntax, and its validation works on
// the internal types of package core; newer apimachinery would print
// JSON instead, so kubeValue refuses JSON and renders the older way.
type kubeValue struct{ v any }

var errNoJSON = errors.New("registry: kubeValue is shown as text")

func (kubeValue) MarshalJSON() ([]byte, error) { return nil, errNoJSON }

// versionedType matches the package qualifier of a core/v1 type in Go
// syntax, which kube's internal types spell "core.".
var versionedType = regexp.MustCompile(`\bv1\.([A-Z])`)

func (k kubeValue) String() string {
	v := k.v
	if rv := reflect.ValueOf(v); v == nil || (rv.Kind() == reflect.Pointer && rv.IsNil()) {
		return "null"
	} else if rv.Kind() == reflect.Pointer {
		v = rv.Elem().Interface()
	}
	if s, ok := v.(fmt.Stringer); ok {
		return s.String()
	}
	return versionedType.ReplaceAllString(fmt.Sprintf("%#v", v), "core.$1")
}
