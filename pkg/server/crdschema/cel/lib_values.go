package cel

import (
	"fmt"
	"reflect"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// The libraries' values (IPs, CIDRs, URLs, versions, quantities, formats)
// differ only in their Go value, CEL type, string form, equality and size,
// so a valueKind holds those and libVal implements ref.Val once for all
// (formatVal, which keeps a type of its own, shares valueKind's methods).

// valueKind describes one library type whose values hold a T.
type valueKind[T any] struct {
	typ  *cel.Type
	name string // the type in ConvertToNative's errors, as kube names it
	// native gives ConvertToNative's value for T itself: a copy where the
	// caller could otherwise modify the value, which CEL treats as
	// immutable. nil where kube gives only the string form.
	native func(T) any
	// str is the string form ConvertToNative gives (nil for none);
	// castsToString has ConvertToType give it too, as kube's IP and CIDR do.
	str           func(T) string
	castsToString bool
	equal         func(a, b T) bool
	size          func(T) int // for sizedVal only
}

func (k *valueKind[T]) of(x T) libVal[T]        { return libVal[T]{v: x, kind: k} }
func (k *valueKind[T]) sizedOf(x T) sizedVal[T] { return sizedVal[T]{k.of(x)} }

func (k *valueKind[T]) convertToNative(x T, typeDesc reflect.Type) (any, error) {
	if k.native != nil && reflect.TypeFor[T]().AssignableTo(typeDesc) {
		return k.native(x), nil
	}
	if k.str != nil && reflect.TypeFor[string]().AssignableTo(typeDesc) {
		return k.str(x), nil
	}
	return nil, fmt.Errorf("type conversion error from '%s' to '%v'", k.name, typeDesc)
}

// convertToType takes self, the value holding x, so that converting to its
// own type gives back that value, whichever Go type wraps x.
func (k *valueKind[T]) convertToType(self ref.Val, x T, typeVal ref.Type) ref.Val {
	switch typeVal {
	case k.typ:
		return self
	case types.TypeType:
		return k.typ
	case types.StringType:
		if k.castsToString {
			return types.String(k.str(x))
		}
	}
	return types.NewErr("type conversion error from '%s' to '%s'", k.typ, typeVal)
}

// equalAs is Equal for a V: values of any other Go type are not comparable
// with it.
func equalAs[V ref.Val](v V, other ref.Val, equal func(a, b V) bool) ref.Val {
	o, ok := other.(V)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(equal(v, o))
}

// libVal is a library's value in CEL.
type libVal[T any] struct {
	v    T
	kind *valueKind[T]
}

func (v libVal[T]) ConvertToNative(typeDesc reflect.Type) (any, error) {
	return v.kind.convertToNative(v.v, typeDesc)
}

func (v libVal[T]) ConvertToType(typeVal ref.Type) ref.Val {
	return v.kind.convertToType(v, v.v, typeVal)
}

func (v libVal[T]) Equal(other ref.Val) ref.Val {
	return equalAs(v, other, func(a, b libVal[T]) bool { return v.kind.equal(a.v, b.v) })
}

func (v libVal[T]) Type() ref.Type { return v.kind.typ }
func (v libVal[T]) Value() any     { return v.v }

// sizedVal is a libVal with a size (a traits.Sizer), which runtime costs
// use. It is a type of its own since cel-go takes any Sizer's size as the
// value's, where other values count as 1.
type sizedVal[T any] struct {
	libVal[T]
}

// ConvertToType and Equal are libVal's, redone so that they see a sizedVal.
func (v sizedVal[T]) ConvertToType(typeVal ref.Type) ref.Val {
	return v.kind.convertToType(v, v.v, typeVal)
}

func (v sizedVal[T]) Equal(other ref.Val) ref.Val {
	return equalAs(v, other, func(a, b sizedVal[T]) bool { return v.kind.equal(a.v, b.v) })
}

func (v sizedVal[T]) Size() ref.Val { return types.Int(v.kind.size(v.v)) }
