package cel

import (
	"fmt"
	"math"

	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// Costs are CEL's abstract units. The estimates decide which rules a CRD may
// declare, so they follow kube's formulas: a rule kube accepts is accepted
// here, one it refuses is refused.

const (
	stringTraversalCostFactor   = 0.1  // cost of reading one byte of a string
	regexStringLengthCostFactor = 0.25 // cost of one byte of a regex pattern
)

// estimator estimates the cost of a rule at compile time. CEL knows the cost
// of its own functions but not how large the data is: that comes from the
// schema (maxLength, maxItems, maxProperties, or what fits in a request),
// looked up along the path the expression reads (self.spec.items, or the
// @items of a comprehension over it).
type estimator struct {
	self *declType
}

func (e *estimator) EstimateSize(n checker.AstNode) *checker.SizeEstimate {
	path := n.Path()
	if len(path) == 0 {
		return nil
	}
	t := e.self // path[0] is self or oldSelf: both have the node's type
	for _, p := range path[1:] {
		switch p {
		case "@items", "@values":
			if t.elem == nil {
				return nil
			}
			t = t.elem
		case "@keys":
			if t.kind != kindMap {
				return nil
			}
			t = mapKeyType
		default:
			f := t.field(p)
			if f == nil {
				return nil
			}
			t = f.t
		}
	}
	return &checker.SizeEstimate{Min: 0, Max: uint64(t.maxElems)}
}

func (e *estimator) size(n checker.AstNode) checker.SizeEstimate {
	if sz := n.ComputedSize(); sz != nil {
		return *sz
	}
	if sz := e.EstimateSize(n); sz != nil {
		return *sz
	}
	return checker.SizeEstimate{Min: 0, Max: math.MaxUint64}
}

func (e *estimator) EstimateCallCost(function, overloadID string, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	if est := e.libraryCallCost(function, overloadID, args); est != nil {
		return est
	}
	switch function {
	case "isSorted", "sum", "max", "min", "indexOf", "lastIndexOf":
		if target == nil {
			return nil
		}
		if params := (*target).Type().Parameters(); len(params) > 0 {
			// a list: one unit per element compared, plus reading strings
			elemCost := checker.CostEstimate{Min: 1, Max: 1}
			if k := params[0].Kind(); k == types.StringKind || k == types.BytesKind {
				elemCost = elemCost.Add(e.size(&itemsNode{parent: *target, t: params[0]}).MultiplyByCostFactor(stringTraversalCostFactor))
			}
			return &checker.CallEstimate{CostEstimate: e.size(*target).MultiplyByCost(elemCost)}
		}
		// indexOf and lastIndexOf of ext.Strings: one pass over the string
		return &checker.CallEstimate{CostEstimate: e.size(*target).MultiplyByCostFactor(stringTraversalCostFactor)}
	case "lowerAscii", "upperAscii", "substring", "trim":
		if target != nil {
			sz := e.size(*target)
			return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(stringTraversalCostFactor), ResultSize: &sz}
		}
	case "replace":
		if target != nil && len(args) >= 2 {
			return e.replaceCost(e.size(*target), e.size(args[0]), e.size(args[1]))
		}
	case "split":
		if target != nil {
			sz := e.size(*target)
			maxParts := sz.Max // worst case: split by "" returns every character
			if len(args) > 1 {
				if lit := args[1].Expr().AsLiteral(); lit != nil {
					if i, ok := lit.Value().(int64); ok {
						maxParts = uint64(i)
					}
				}
			}
			return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(2 * stringTraversalCostFactor), ResultSize: &checker.SizeEstimate{Min: 0, Max: maxParts}}
		}
	case "join":
		if target != nil {
			return e.joinCost(*target, args)
		}
	case "find", "findAll":
		if target != nil && len(args) >= 1 {
			sz := e.size(*target)
			// +1 so that an empty string still pays for the regex
			strCost := sz.Add(checker.SizeEstimate{Min: 1, Max: 1}).MultiplyByCostFactor(stringTraversalCostFactor)
			regexCost := e.size(args[0]).MultiplyByCostFactor(regexStringLengthCostFactor)
			return &checker.CallEstimate{CostEstimate: strCost.Multiply(regexCost), ResultSize: &checker.SizeEstimate{Min: 0, Max: sz.Max}}
		}
	}
	return nil
}

// replaceCost is a traversal plus building the result; the result's size
// assumes the most (or fewest) replacements possible.
func (e *estimator) replaceCost(sz, from, to checker.SizeEstimate) *checker.CallEstimate {
	var count, kept checker.SizeEstimate
	switch {
	case from.Min == 0: // "" is replaced around every character
		count.Max = addOneSat(sz.Max)
		kept.Max = sz.Max
	case to.Max <= from.Min:
		kept.Max = sz.Max
	default:
		count.Max = uint64(math.Ceil(float64(sz.Max) / float64(from.Min)))
	}
	switch {
	case from.Max == 0:
		count.Min = addOneSat(sz.Min)
		kept.Min = sz.Min
	case from.Max <= to.Min:
		kept.Min = sz.Min
	default:
		count.Min = uint64(math.Ceil(float64(sz.Min) / float64(from.Max)))
	}
	result := count.Multiply(to).Add(kept)
	return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(2 * stringTraversalCostFactor), ResultSize: &result}
}

func (e *estimator) joinCost(target checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	var sz checker.SizeEstimate
	listSize := e.size(target)
	if params := target.Type().Parameters(); len(params) > 0 {
		sz = listSize.Multiply(e.size(&itemsNode{parent: target, t: params[0]}))
	}
	if len(args) > 0 {
		sep := e.size(args[0])
		var minSeps, maxSeps uint64
		if listSize.Min > 0 {
			minSeps = listSize.Min - 1
		}
		if listSize.Max > 0 {
			maxSeps = listSize.Max - 1
		}
		sz = sz.Add(sep.Multiply(checker.SizeEstimate{Min: minSeps, Max: maxSeps}))
	}
	return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(stringTraversalCostFactor), ResultSize: &sz}
}

func addOneSat(v uint64) uint64 {
	if v < math.MaxUint64 {
		return v + 1
	}
	return v
}

// itemsNode stands for "an element of this list" so that its size can be
// looked up in the schema (e.g. the maxLength of a list of strings).
type itemsNode struct {
	parent checker.AstNode
	t      *types.Type
}

func (n *itemsNode) Path() []string {
	p := n.parent.Path()
	if p == nil {
		return nil
	}
	return append(p[:len(p):len(p)], "@items")
}
func (n *itemsNode) Type() *types.Type                   { return n.t }
func (n *itemsNode) Expr() ast.Expr                      { return nil }
func (n *itemsNode) ComputedSize() *checker.SizeEstimate { return nil }

// runtimeCost charges what the kube library functions and ext.Strings
// actually did; CEL charges its own functions itself.
type runtimeCost struct{}

func (runtimeCost) CallCost(function, overloadID string, args []ref.Val, result ref.Val) *uint64 {
	cost := func(v float64) *uint64 {
		c := uint64(math.Ceil(v))
		return &c
	}
	if c, ok := libraryRuntimeCost(function, overloadID, args); ok {
		return &c
	}
	switch function {
	case "isSorted", "sum", "max", "min", "indexOf", "lastIndexOf":
		if len(args) > 0 {
			c := traversalCost(args[0])
			return &c
		}
		var zero uint64
		return &zero
	case "lowerAscii", "upperAscii", "substring", "trim":
		if len(args) >= 1 {
			return cost(float64(actualSize(args[0])) * stringTraversalCostFactor)
		}
	case "replace", "split":
		if len(args) >= 1 {
			return cost(float64(actualSize(args[0])) * 2 * stringTraversalCostFactor)
		}
	case "join":
		if len(args) >= 1 {
			return cost(float64(actualSize(result)) * 2 * stringTraversalCostFactor)
		}
	case "find", "findAll":
		if len(args) >= 2 {
			strCost := uint64(math.Ceil((1.0 + float64(actualSize(args[0]))) * stringTraversalCostFactor))
			regexCost := uint64(math.Ceil(float64(actualSize(args[1])) * regexStringLengthCostFactor))
			c := strCost * regexCost
			return &c
		}
	}
	return nil
}

func actualSize(v ref.Val) uint64 {
	if s, ok := v.(traits.Sizer); ok {
		if n, ok := s.Size().(types.Int); ok && n >= 0 {
			return uint64(n)
		}
	}
	return 1
}

// traversalCost is the cost of walking a value once.
func traversalCost(v ref.Val) uint64 {
	switch x := v.(type) {
	case types.String:
		return uint64(float64(len(x)) * stringTraversalCostFactor)
	case types.Bytes:
		return uint64(float64(len(x)) * stringTraversalCostFactor)
	case traits.Lister:
		var c uint64
		for it := x.Iterator(); it.HasNext() == types.True; {
			c += traversalCost(it.Next())
		}
		return c
	case traits.Mapper:
		var c uint64
		for it := x.Iterator(); it.HasNext() == types.True; {
			k := it.Next()
			c += traversalCost(k) + traversalCost(x.Get(k))
		}
		return c
	}
	return 1
}

// costExceededMessage is kube's text for an estimate over a limit.
func costExceededMessage(what string, cost, limit uint64) string {
	factor := float64(cost) / float64(limit)
	var f string
	switch {
	case factor > 100:
		// O(n^2) or worse: the exact factor says nothing useful
		f = "more than 100x"
	case factor < 1.5:
		f = fmt.Sprintf("%fx", factor)
	default:
		f = fmt.Sprintf("%.1fx", factor)
	}
	return fmt.Sprintf("%s exceeds budget by factor of %s (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)", what, f)
}

// saturatingMul multiplies without wrapping around.
func saturatingMul(a, b uint64) uint64 {
	if a == 0 || b == 0 {
		return 0
	}
	if math.MaxUint64/a < b {
		return math.MaxUint64
	}
	return a * b
}

// The costs of kube's quantity, URL, IP, CIDR, format and semver libraries
// (lib_*.go), by kube's formulas: parsing a string costs a traversal of it,
// accessors and comparisons of parsed values cost 1.

// libraryCallCost is the estimate of a call to one of these libraries, or
// nil for other functions. args excludes the target of a method call.
func (e *estimator) libraryCallCost(function, overloadID string, args []checker.AstNode) *checker.CallEstimate {
	fixed := func(c uint64) *checker.CallEstimate {
		return &checker.CallEstimate{CostEstimate: checker.CostEstimate{Min: c, Max: c}}
	}
	traversal := func(factor float64) *checker.CallEstimate {
		if len(args) == 0 {
			return nil
		}
		return &checker.CallEstimate{CostEstimate: e.size(args[0]).MultiplyByCostFactor(factor)}
	}
	// comparing two addresses of 4 to 16 bytes
	ipBytes := checker.SizeEstimate{Min: 4, Max: 16}
	ipCompare := ipBytes.Add(ipBytes).MultiplyByCostFactor(stringTraversalCostFactor)
	switch function {
	case "url":
		if len(args) == 1 {
			sz := e.size(args[0])
			return &checker.CallEstimate{CostEstimate: sz.MultiplyByCostFactor(stringTraversalCostFactor), ResultSize: &sz}
		}
	case "quantity", "isQuantity", "semver", "isSemver", "cidr", "isIP", "isCIDR":
		return traversal(stringTraversalCostFactor)
	case "ip":
		if overloadID == "cidr_ip" {
			return fixed(1)
		}
		return traversal(stringTraversalCostFactor)
	case "ip.isCanonical":
		// parsing, then comparing with the canonical form
		return traversal(2 * stringTraversalCostFactor)
	case "containsIP":
		if len(args) >= 1 {
			c := ipCompare
			if overloadID == "cidr_contains_ip_string" {
				c = c.Add(e.size(args[0]).MultiplyByCostFactor(stringTraversalCostFactor))
			}
			return &checker.CallEstimate{CostEstimate: c}
		}
	case "containsCIDR":
		if len(args) >= 1 {
			// masking the prefix is another pass over the address
			c := ipCompare.Add(ipBytes.MultiplyByCostFactor(stringTraversalCostFactor)).Add(checker.CostEstimate{Min: 1, Max: 1})
			if overloadID == "cidr_contains_cidr_string" {
				c = c.Add(e.size(args[0]).MultiplyByCostFactor(stringTraversalCostFactor))
			}
			return &checker.CallEstimate{CostEstimate: c}
		}
	case "validate":
		// a regular expression of maxNameFormatRegexSize over the string
		if len(args) >= 1 {
			c := e.size(args[0]).MultiplyByCostFactor(stringTraversalCostFactor).
				MultiplyByCostFactor(maxNameFormatRegexSize * regexStringLengthCostFactor)
			return &checker.CallEstimate{CostEstimate: c}
		}
	case "masked", "prefixLength", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast",
		"isLinkLocalUnicast", "isGlobalUnicast", "format.named",
		"sign", "asInteger", "isInteger", "asApproximateFloat", "isGreaterThan", "isLessThan", "compareTo",
		"add", "sub", "major", "minor", "patch",
		"getScheme", "getHostname", "getHost", "getPort", "getEscapedPath", "getQuery":
		return fixed(1)
	case "_==_":
		if len(args) != 2 {
			return nil
		}
		lhs, rhs := args[0].Type(), args[1].Type()
		if lhs.Equal(rhs) != types.True {
			return nil
		}
		switch libraryType(lhs) {
		case ipType, cidrType, quantityType, semverType:
			return fixed(1)
		case formatType:
			return &checker.CallEstimate{CostEstimate: checker.CostEstimate{Min: 1, Max: maxFormatSize}.MultiplyByCostFactor(stringTraversalCostFactor)}
		case urlType:
			// kube takes the size of the right operand for both
			sz := checker.SizeEstimate{Min: 1, Max: 1}
			if rsz := args[1].ComputedSize(); rsz != nil {
				sz = *rsz
			}
			return &checker.CallEstimate{CostEstimate: checker.CostEstimate{Min: 1, Max: sz.Max}.MultiplyByCostFactor(stringTraversalCostFactor)}
		}
	}
	return nil
}

// libraryType returns the library type t is, or nil.
func libraryType(t *types.Type) *types.Type {
	for _, lt := range []*types.Type{ipType, cidrType, quantityType, semverType, formatType, urlType} {
		if t.Kind() == lt.Kind() && t.TypeName() == lt.TypeName() {
			return lt
		}
	}
	return nil
}

// libraryRuntimeCost is the actual cost of a call to one of these
// libraries; false for other functions.
func libraryRuntimeCost(function, overloadID string, args []ref.Val) (uint64, bool) {
	traversal := func(v ref.Val, factor float64) uint64 {
		return uint64(math.Ceil(float64(actualSize(v)) * factor))
	}
	switch function {
	case "url", "quantity", "isQuantity", "semver", "isSemver", "cidr", "isIP", "isCIDR":
		if len(args) >= 1 {
			return traversal(args[0], stringTraversalCostFactor), true
		}
	case "ip":
		if overloadID == "cidr_ip" {
			return 1, true
		}
		if len(args) >= 1 {
			return traversal(args[0], stringTraversalCostFactor), true
		}
	case "ip.isCanonical":
		if len(args) >= 1 {
			return traversal(args[0], 2*stringTraversalCostFactor), true
		}
	case "containsIP", "containsCIDR":
		if len(args) >= 2 {
			// the CIDR's size is its prefix length in bytes
			prefix := actualSize(args[0])
			c := uint64(math.Ceil(float64(2*prefix) * stringTraversalCostFactor))
			if function == "containsCIDR" {
				c += uint64(math.Ceil(float64(prefix)*stringTraversalCostFactor)) + 1
			}
			if overloadID == "cidr_contains_ip_string" || overloadID == "cidr_contains_cidr_string" {
				c += traversal(args[1], stringTraversalCostFactor)
			}
			return c, true
		}
	case "validate":
		if len(args) >= 2 {
			if f, ok := args[0].(formatVal); ok {
				strCost := uint64(math.Ceil((1.0 + float64(actualSize(args[1]))) * stringTraversalCostFactor))
				regexCost := uint64(math.Ceil(float64(f.f.maxRegexSize) * regexStringLengthCostFactor))
				return strCost * regexCost, true
			}
		}
	case "masked", "prefixLength", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast",
		"isLinkLocalUnicast", "isGlobalUnicast", "format.named",
		"sign", "asInteger", "isInteger", "asApproximateFloat", "isGreaterThan", "isLessThan", "compareTo",
		"add", "sub", "major", "minor", "patch",
		"getScheme", "getHostname", "getHost", "getPort", "getEscapedPath", "getQuery":
		return 1, true
	case "_==_":
		if len(args) == 2 {
			switch args[0].(type) {
			case ipVal, cidrVal, quantityVal, semverVal, formatVal, urlVal:
				return 1, true
			}
		}
	}
	return 0, false
}
