package cel

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/functions"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// kube's list library (k8s.io/apiserver/pkg/cel/library, version 0, the one
// new CRD rules may use): isSorted, sum, min, max, indexOf and lastIndexOf on
// lists. The overload ids are kube's, since they name the functions in
// compile errors.
func listsLibrary() cel.EnvOption {
	comparable := []struct {
		name string
		t    *cel.Type
	}{
		{"int", cel.IntType}, {"uint", cel.UintType}, {"double", cel.DoubleType},
		{"bool", cel.BoolType}, {"duration", cel.DurationType},
		{"timestamp", cel.TimestampType}, {"string", cel.StringType},
		{"bytes", cel.BytesType},
	}
	summable := map[string]ref.Val{
		"int": types.Int(0), "uint": types.Uint(0), "double": types.Double(0),
		"duration": types.Duration{},
	}
	var isSortedO, sumO, minO, maxO []cel.FunctionOpt
	for _, c := range comparable {
		lt := []*cel.Type{cel.ListType(c.t)}
		isSortedO = append(isSortedO, cel.MemberOverload("list_"+c.name+"_is_sorted_bool", lt, cel.BoolType, cel.UnaryBinding(isSorted)))
		minO = append(minO, cel.MemberOverload("list_"+c.name+"_min_"+c.name, lt, c.t, cel.UnaryBinding(extreme("min", types.IntOne))))
		maxO = append(maxO, cel.MemberOverload("list_"+c.name+"_max_"+c.name, lt, c.t, cel.UnaryBinding(extreme("max", types.IntNegOne))))
		if zero, ok := summable[c.name]; ok {
			sumO = append(sumO, cel.MemberOverload("list_"+c.name+"_sum_"+c.name, lt, c.t, cel.UnaryBinding(sum(zero))))
		}
	}
	a := cel.TypeParamType("A")
	return cel.Lib(library{
		cel.Function("isSorted", isSortedO...),
		cel.Function("sum", sumO...),
		cel.Function("min", minO...),
		cel.Function("max", maxO...),
		cel.Function("indexOf", cel.MemberOverload("list_a_index_of_int",
			[]*cel.Type{cel.ListType(a), a}, cel.IntType, cel.BinaryBinding(indexOf))),
		cel.Function("lastIndexOf", cel.MemberOverload("list_a_last_index_of_int",
			[]*cel.Type{cel.ListType(a), a}, cel.IntType, cel.BinaryBinding(lastIndexOf))),
	})
}

var isSorted = unary(func(it traits.Iterable) ref.Val {
	var prev traits.Comparer
	for i := it.Iterator(); i.HasNext() == types.True; {
		next := i.Next()
		c, ok := next.(traits.Comparer)
		if !ok {
			return types.MaybeNoSuchOverloadErr(next)
		}
		if prev != nil && prev.Compare(next) == types.IntOne {
			return types.False
		}
		prev = c
	}
	return types.True
})

func sum(zero ref.Val) functions.UnaryOp {
	return unary(func(it traits.Iterable) ref.Val {
		acc := zero
		for i := it.Iterator(); i.HasNext() == types.True; {
			a, ok := acc.(traits.Adder)
			if !ok {
				return types.MaybeNoSuchOverloadErr(acc)
			}
			acc = a.Add(i.Next())
			if types.IsError(acc) {
				return acc // e.g. integer overflow
			}
		}
		return acc
	})
}

// extreme returns min (prefer when the current result compares as 1) or max
// (prefer when it compares as -1).
func extreme(name string, prefer ref.Val) functions.UnaryOp {
	return unary(func(it traits.Iterable) ref.Val {
		var result traits.Comparer
		for i := it.Iterator(); i.HasNext() == types.True; {
			next := i.Next()
			c, ok := next.(traits.Comparer)
			if !ok {
				return types.MaybeNoSuchOverloadErr(next)
			}
			if result == nil || result.Compare(next) == prefer {
				result = c
			}
		}
		if result == nil {
			return types.NewErr("%s called on empty list", name)
		}
		return result.(ref.Val)
	})
}

var indexOf = binary(func(l traits.Lister, item ref.Val) ref.Val {
	n, _ := l.Size().(types.Int)
	for i := types.Int(0); i < n; i++ {
		if l.Get(i).Equal(item) == types.True {
			return i
		}
	}
	return types.Int(-1)
})

var lastIndexOf = binary(func(l traits.Lister, item ref.Val) ref.Val {
	n, _ := l.Size().(types.Int)
	for i := n - 1; i >= 0; i-- {
		if l.Get(i).Equal(item) == types.True {
			return i
		}
	}
	return types.Int(-1)
})
