package cel

import (
	"regexp"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"
)

// kube's regex library: "abc 123".find('[0-9]+') is "123" ("" when nothing
// matches), "a1b2".findAll('[0-9]') is ["1", "2"], and findAll(re, n) returns
// at most n matches (all when n < 0).
func regexLibrary() cel.EnvOption {
	listOfString := cel.ListType(cel.StringType)
	return cel.Lib(library{
		cel.Function("find", cel.MemberOverload("string_find_string",
			[]*cel.Type{cel.StringType, cel.StringType}, cel.StringType,
			cel.BinaryBinding(func(s, re ref.Val) ref.Val {
				r, err := compileRegex(re)
				if err != nil {
					return err
				}
				return findFirst(r, s)
			}))),
		cel.Function("findAll",
			cel.MemberOverload("string_find_all_string",
				[]*cel.Type{cel.StringType, cel.StringType}, listOfString,
				cel.FunctionBinding(findAllUncompiled)),
			cel.MemberOverload("string_find_all_string_int",
				[]*cel.Type{cel.StringType, cel.StringType, cel.IntType}, listOfString,
				cel.FunctionBinding(findAllUncompiled))),
	})
}

// regexOptimizations compile constant patterns once, when the program is
// planned, instead of on every evaluation; a bad constant pattern then fails
// program creation, which Compile reports for the rule.
var regexOptimizations = []*interpreter.RegexOptimization{
	{Function: "find", RegexIndex: 1, Factory: func(call interpreter.InterpretableCall, pattern string) (interpreter.InterpretableCall, error) {
		r, err := regexp.Compile(pattern)
		if err != nil {
			return nil, err
		}
		return interpreter.NewCall(call.ID(), call.Function(), call.OverloadID(), call.Args(), func(args ...ref.Val) ref.Val {
			if len(args) != 2 {
				return types.NoSuchOverloadErr()
			}
			return findFirst(r, args[0])
		}), nil
	}},
	{Function: "findAll", RegexIndex: 1, Factory: func(call interpreter.InterpretableCall, pattern string) (interpreter.InterpretableCall, error) {
		r, err := regexp.Compile(pattern)
		if err != nil {
			return nil, err
		}
		return interpreter.NewCall(call.ID(), call.Function(), call.OverloadID(), call.Args(), func(args ...ref.Val) ref.Val {
			return findAll(r, args)
		}), nil
	}},
}

func compileRegex(re ref.Val) (*regexp.Regexp, ref.Val) {
	pattern, ok := re.(types.String)
	if !ok {
		return nil, types.MaybeNoSuchOverloadErr(re)
	}
	r, err := regexp.Compile(string(pattern))
	if err != nil {
		return nil, types.NewErr("Illegal regex: %v", err.Error())
	}
	return r, nil
}

func findFirst(r *regexp.Regexp, s ref.Val) ref.Val {
	str, ok := s.(types.String)
	if !ok {
		return types.MaybeNoSuchOverloadErr(s)
	}
	return types.String(r.FindString(string(str)))
}

func findAllUncompiled(args ...ref.Val) ref.Val {
	if len(args) < 2 {
		return types.NoSuchOverloadErr()
	}
	r, err := compileRegex(args[1])
	if err != nil {
		return err
	}
	return findAll(r, args)
}

func findAll(r *regexp.Regexp, args []ref.Val) ref.Val {
	if len(args) < 2 || len(args) > 3 {
		return types.NoSuchOverloadErr()
	}
	str, ok := args[0].(types.String)
	if !ok {
		return types.MaybeNoSuchOverloadErr(args[0])
	}
	n := -1
	if len(args) == 3 {
		i, ok := args[2].(types.Int)
		if !ok {
			return types.MaybeNoSuchOverloadErr(args[2])
		}
		n = int(i)
	}
	return types.NewStringList(types.DefaultTypeAdapter, r.FindAllString(string(str), n))
}
