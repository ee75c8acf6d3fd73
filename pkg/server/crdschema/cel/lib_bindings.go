package cel

import (
	"github.com/google/cel-go/common/functions"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// unary and binary adapt a function of typed arguments to a CEL binding:
// an argument whose Go type is not the parameter's gives
// types.MaybeNoSuchOverloadErr of that argument (the first such, left to
// right), which passes on an error or unknown and otherwise says there is no
// such overload. A parameter may be an interface (traits.Lister); ref.Val
// takes any argument as it is.
func unary[A any](f func(A) ref.Val) functions.UnaryOp {
	return func(arg ref.Val) ref.Val {
		a, ok := arg.(A)
		if !ok {
			return types.MaybeNoSuchOverloadErr(arg)
		}
		return f(a)
	}
}

func binary[A, B any](f func(A, B) ref.Val) functions.BinaryOp {
	return func(lhs, rhs ref.Val) ref.Val {
		a, ok := lhs.(A)
		if !ok {
			return types.MaybeNoSuchOverloadErr(lhs)
		}
		b, ok := rhs.(B)
		if !ok {
			return types.MaybeNoSuchOverloadErr(rhs)
		}
		return f(a, b)
	}
}

// parses is the binding of a predicate like isIP(s): whether parse accepts
// the string s.
func parses[T any](parse func(string) (T, error)) functions.UnaryOp {
	return unary(func(s types.String) ref.Val {
		_, err := parse(string(s))
		return types.Bool(err == nil)
	})
}
