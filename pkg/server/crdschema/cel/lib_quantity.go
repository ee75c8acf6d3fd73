package cel

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/functions"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"k8s.io/apimachinery/pkg/api/resource"
)

// kube's quantity library (k8s.io/apiserver/pkg/cel/library, as of 1.33):
//
//	quantity('1.5Gi')                        a Quantity, or an error
//	isQuantity('1.5Gi')                      whether quantity() would succeed
//	q.isInteger(), q.asInteger()             int64 without loss, or an error
//	q.asApproximateFloat()                   a double (±Inf when too large)
//	sign(q)                                  -1, 0 or 1 (a function, not a method, as in kube)
//	q.add(q2), q.add(int), q.sub(q2), q.sub(int)
//	q.isGreaterThan(q2), q.isLessThan(q2), q.compareTo(q2)
//
// The overload ids are kube's. Quantities are resource.Quantity and parse
// exactly as kube does, with one exception: a non-zero quantity whose
// power of ten is above maxQuantityExponent is refused (see
// boundQuantityExponent), where kube would spend unbounded CPU on it.
var quantityType = cel.ObjectType("kubernetes.Quantity")

func quantityLibrary() cel.EnvOption {
	q := quantityType
	return cel.Lib(library{
		cel.Function("quantity", cel.Overload("string_to_quantity",
			[]*cel.Type{cel.StringType}, q, cel.UnaryBinding(stringToQuantity))),
		cel.Function("isQuantity", cel.Overload("is_quantity_string",
			[]*cel.Type{cel.StringType}, cel.BoolType, cel.UnaryBinding(parses(parseQuantity)))),
		cel.Function("sign", cel.Overload("quantity_sign",
			[]*cel.Type{q}, cel.IntType, cel.UnaryBinding(unary(func(x quantityVal) ref.Val {
				return types.Int(x.v.Sign())
			})))),
		cel.Function("isInteger", cel.MemberOverload("quantity_is_integer",
			[]*cel.Type{q}, cel.BoolType, cel.UnaryBinding(unary(func(x quantityVal) ref.Val {
				_, ok := x.v.AsInt64()
				return types.Bool(ok)
			})))),
		cel.Function("asInteger", cel.MemberOverload("quantity_get_int",
			[]*cel.Type{q}, cel.IntType, cel.UnaryBinding(unary(func(x quantityVal) ref.Val {
				i, ok := x.v.AsInt64()
				if !ok {
					return types.WrapErr(errors.New("cannot convert value to integer"))
				}
				return types.Int(i)
			})))),
		cel.Function("asApproximateFloat", cel.MemberOverload("quantity_get_float",
			[]*cel.Type{q}, cel.DoubleType, cel.UnaryBinding(unary(func(x quantityVal) ref.Val {
				return types.Double(x.v.AsApproximateFloat64())
			})))),
		cel.Function("isGreaterThan", cel.MemberOverload("quantity_is_greater_than",
			[]*cel.Type{q, q}, cel.BoolType, cel.BinaryBinding(quantityCompare(func(c int) ref.Val { return types.Bool(c > 0) })))),
		cel.Function("isLessThan", cel.MemberOverload("quantity_is_less_than",
			[]*cel.Type{q, q}, cel.BoolType, cel.BinaryBinding(quantityCompare(func(c int) ref.Val { return types.Bool(c < 0) })))),
		cel.Function("compareTo", cel.MemberOverload("quantity_compare_to",
			[]*cel.Type{q, q}, cel.IntType, cel.BinaryBinding(quantityCompare(func(c int) ref.Val { return types.Int(c) })))),
		cel.Function("add",
			cel.MemberOverload("quantity_add", []*cel.Type{q, q}, q, cel.BinaryBinding(quantityArith(false))),
			cel.MemberOverload("quantity_add_int", []*cel.Type{q, cel.IntType}, q, cel.BinaryBinding(quantityArith(false)))),
		cel.Function("sub",
			cel.MemberOverload("quantity_sub", []*cel.Type{q, q}, q, cel.BinaryBinding(quantityArith(true))),
			cel.MemberOverload("quantity_sub_int", []*cel.Type{q, cel.IntType}, q, cel.BinaryBinding(quantityArith(true)))),
	})
}

// quantityVal is a Quantity in CEL. The quantity it points to is never
// modified: resource.Quantity's methods convert their receiver in place
// (Cmp, AsDec) or share its inf.Dec with copies (Add, Sub), so operations
// work on copies.
type quantityVal = libVal[*resource.Quantity]

var quantityKind = &valueKind[*resource.Quantity]{
	typ:    quantityType,
	name:   "Quantity",
	native: func(q *resource.Quantity) any { c := q.DeepCopy(); return &c },
	// String caches the string in its receiver: let it write to a copy
	str:   func(q *resource.Quantity) string { c := q.DeepCopy(); return c.String() },
	equal: func(a, b *resource.Quantity) bool { return cmpQuantity(a, b) == 0 },
}

// cmpQuantity compares without touching either quantity.
func cmpQuantity(a, b *resource.Quantity) int {
	c := *a // Cmp may convert its receiver to inf.Dec: let it convert a copy
	return c.Cmp(*b)
}

var stringToQuantity = unary(func(s types.String) ref.Val {
	q, err := parseQuantity(string(s))
	if err != nil {
		return types.WrapErr(err)
	}
	return quantityKind.of(&q)
})

func quantityCompare(result func(int) ref.Val) functions.BinaryOp {
	return binary(func(a, b quantityVal) ref.Val { return result(cmpQuantity(a.v, b.v)) })
}

// quantityArith adds (or subtracts) a quantity or an int to a quantity.
func quantityArith(sub bool) functions.BinaryOp {
	return binary(func(a quantityVal, rhs ref.Val) ref.Val {
		var y resource.Quantity
		switch b := rhs.(type) {
		case quantityVal:
			y = *b.v // Add and Sub convert their argument, but only this copy of it
		case types.Int:
			y = *resource.NewQuantity(int64(b), resource.DecimalExponent)
		default:
			return types.MaybeNoSuchOverloadErr(rhs)
		}
		r := a.v.DeepCopy()
		if sub {
			r.Sub(y)
		} else {
			r.Add(y)
		}
		return quantityKind.of(&r)
	})
}

// maxQuantityExponent bounds the power of ten of a non-zero quantity.
// Operations on a quantity scale its digits to the other operand's power of
// ten, so a quantity like 1e999999999 (valid for kube) would take minutes
// of CPU and gigabytes to compare with 1, and parsing some such strings
// takes as long. No real amount comes near 10^1000.
const maxQuantityExponent = 1000

var errQuantityTooLarge = fmt.Errorf("quantities with a power of ten above %d are not supported", maxQuantityExponent)

// parseQuantity is resource.ParseQuantity with the exponent bounded.
func parseQuantity(s string) (resource.Quantity, error) {
	s, err := boundQuantityExponent(s)
	if err != nil {
		return resource.Quantity{}, err
	}
	return resource.ParseQuantity(s)
}

// boundQuantityExponent rewrites the exponent of a quantity like 1.5e-7 so
// that parsing it takes time in proportion to its length, or refuses it.
// Where the exponent is rewritten the result is the quantity kube parses
// from the original:
//   - a non-zero quantity below 10^-10 rounds up to one nano (1e-9) in
//     kube's parser, which the smallest exponent that keeps it below 10^-10
//     does as well;
//   - the power of ten of zero shows only in asApproximateFloat (NaN
//     from 0 times an infinite 10^n above 10^308) and in the digits of sums,
//     which float64 cannot hold either way beyond 10^±1000.
//
// A non-zero quantity whose power of ten is above maxQuantityExponent is
// refused.
func boundQuantityExponent(s string) (string, error) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	zero := true
	start := i
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		zero = zero && s[i] == '0'
		i++
	}
	numDigits := int64(i - start)
	var fracDigits int64
	if i < len(s) && s[i] == '.' {
		i++
		start = i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			zero = zero && s[i] == '0'
			i++
		}
		fracDigits = int64(i - start)
	}
	if len(s)-i < 2 || (s[i] != 'e' && s[i] != 'E') {
		return s, nil // no exponent: the suffixes have small powers of ten
	}
	parsed, err := strconv.ParseInt(s[i+1:], 10, 64)
	if err != nil {
		return s, nil // not an exponent; ParseQuantity says what is wrong
	}
	exp := int64(int32(parsed)) // kube truncates the exponent to 32 bits
	scale := exp - fracDigits   // the power of ten of the last digit
	switch {
	case zero:
		if scale >= -maxQuantityExponent && scale <= maxQuantityExponent {
			return s, nil
		}
		exp = min(max(scale, -maxQuantityExponent), maxQuantityExponent) + fracDigits
	case scale > maxQuantityExponent:
		return "", errQuantityTooLarge
	case exp+numDigits < -10: // below 10^(exp+numDigits)
		exp = -numDigits - 10
	default:
		return s, nil
	}
	return s[:i+1] + strconv.FormatInt(exp, 10), nil
}
