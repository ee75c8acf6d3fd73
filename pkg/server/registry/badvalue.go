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

// versionedType matches a type qualified by a package named v1 in Go
// syntax: kube's internal types spell core/v1's "core.", but keep
// "v1." for the meta types they share with the versioned ones.
var versionedType = regexp.MustCompile(`\bv1\.([A-Z]\w*)`)

// metaTypes are the apimachinery meta/v1 types kube's internal types
// embed, printed "v1." by kube too.
var metaTypes = map[string]bool{
	"ObjectMeta": true, "TypeMeta": true, "Time": true, "MicroTime": true, "Duration": true,
	"LabelSelector": true, "LabelSelectorRequirement": true, "OwnerReference": true,
	"ManagedFieldsEntry": true, "FieldsV1": true, "Condition": true,
}

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
	return versionedType.ReplaceAllStringFunc(fmt.Sprintf("%#v", v), func(q string) string {
		if name := q[len("v1."):]; !metaTypes[name] {
			return "core." + name
		}
		return q
	})
}

// metaValue is an invalid value of an apimachinery type (a
// LabelSelector) shown as kube-apiserver v1.33 shows it: Go syntax,
// qualified by the meta package "v1", which kube's internal types share.
func metaValue(v any) printedAs {
	if rv := reflect.ValueOf(v); v == nil || (rv.Kind() == reflect.Pointer && rv.IsNil()) {
		return "null"
	} else if rv.Kind() == reflect.Pointer {
		v = rv.Elem().Interface()
	}
	return printedAs(fmt.Sprintf("%#v", v))
}
