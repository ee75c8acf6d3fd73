package crdschema

import (
	"encoding/json"
	"math"
	"reflect"
	"sort"
	"strconv"
)

// kind is the JSON kind of a decoded value.
type kind uint8

const (
	kindOther kind = iota
	kindNull
	kindString
	kindInt
	kindFloat
	kindBool
	kindObject
	kindArray
)

// kindNames are kube's names for the JSON type of a value, as used in
// "must be of type X" messages.
var kindNames = [...]string{
	kindOther:  "",
	kindNull:   "null",
	kindString: "string",
	kindInt:    "integer",
	kindFloat:  "number",
	kindBool:   "boolean",
	kindObject: "object",
	kindArray:  "array",
}

// classify returns the kind of x and x itself, with other Go number types
// normalized to int64 or float64 so that callers that did not decode with
// PreserveInts still validate.
func classify(x any) (kind, any) {
	switch v := x.(type) {
	case nil:
		return kindNull, nil
	case string:
		return kindString, x
	case int64:
		return kindInt, x
	case float64:
		return kindFloat, x
	case bool:
		return kindBool, x
	case map[string]any:
		return kindObject, x
	case []any:
		return kindArray, x
	case int:
		return kindInt, int64(v)
	case int32:
		return kindInt, int64(v)
	case int16:
		return kindInt, int64(v)
	case int8:
		return kindInt, int64(v)
	case uint32:
		return kindInt, int64(v)
	case uint16:
		return kindInt, int64(v)
	case uint8:
		return kindInt, int64(v)
	case uint:
		if uint64(v) <= math.MaxInt64 {
			return kindInt, int64(v)
		}
		return kindFloat, float64(v)
	case uint64:
		if v <= math.MaxInt64 {
			return kindInt, int64(v)
		}
		return kindFloat, float64(v)
	case float32:
		return kindFloat, float64(v)
	}
	return kindOther, x
}

// maxJSONInt is the largest integer every JSON implementation represents
// exactly; kube accepts integral floats up to it where integers are due.
const maxJSONInt = 1 << 53

// isJSONInteger reports whether f is an integer by kube's standard: within
// ±2^53 and integral up to a relative error of 1e-9.
func isJSONInteger(f float64) bool {
	if math.IsNaN(f) || math.IsInf(f, 0) || f < -maxJSONInt || f > maxJSONInt {
		return false
	}
	t := math.Trunc(f)
	if t == f {
		return true
	}
	r := math.Round(f)
	d := math.Abs(f - r)
	if r == 0 {
		return d < 1e-9*math.SmallestNonzeroFloat64
	}
	return d/(math.Abs(f)+math.Abs(r)) < 1e-9
}

// EqualJSON reports whether two decoded JSON values are the same JSON
// value. It is the one equality of decoded JSON in the server: for no-op
// update detection, ratcheting, enums, sets and defaults.
//
// Numbers compare by exact value whatever Go type the decoder chose
// (int64, float64, json.Number or another Go number type), so 1 equals
// 1.0, as both encode to the same JSON, while integers beyond 2^53 equal
// no float they do not encode like. Values of types JSON does not decode
// to compare with reflect.DeepEqual.
func EqualJSON(a, b any) bool {
	// The types decoding produces first, without classifying.
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return false
		}
		if len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !EqualJSON(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !EqualJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	case int64:
		if y, ok := b.(int64); ok {
			return x == y
		}
	}
	ka, av := classify(jsonNumber(a))
	kb, bv := classify(jsonNumber(b))
	switch {
	case ka == kindOther || kb == kindOther:
		return reflect.DeepEqual(a, b)
	case ka == kindInt && kb == kindInt:
		return av.(int64) == bv.(int64)
	case ka == kindFloat && kb == kindFloat:
		return av.(float64) == bv.(float64)
	case ka == kindInt && kb == kindFloat:
		return intEqualsFloat(av.(int64), bv.(float64))
	case ka == kindFloat && kb == kindInt:
		return intEqualsFloat(bv.(int64), av.(float64))
	}
	// other kinds were handled above, unless a and b differ in kind
	return false
}

// jsonNumber turns a json.Number, which a decoder with UseNumber yields,
// into the int64 or float64 that the server's decoder would have made.
func jsonNumber(x any) any {
	n, ok := x.(json.Number)
	if !ok {
		return x
	}
	if i, err := n.Int64(); err == nil {
		return i
	}
	if f, err := n.Float64(); err == nil {
		return f
	}
	return x
}

// intEqualsFloat reports whether f is exactly the integer i.
func intEqualsFloat(i int64, f float64) bool {
	// -2^63 is the only float of int64's range that 2^63 (outside it) is
	// not below; beyond the range no float is an int64.
	if f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 {
		return false
	}
	return int64(f) == i
}

// deepCopy copies a decoded JSON value so that defaults copied into
// objects never share memory with the schema or with each other.
func deepCopy(x any) any {
	switch v := x.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		s := make([]any, len(v))
		for i, e := range v {
			s[i] = deepCopy(e)
		}
		return s
	}
	return x
}

// appendKey appends a canonical encoding of x to b: values that are
// EqualJSON encode identically, which lets long sets be checked for
// duplicates with a map instead of quadratic comparison.
func appendKey(b []byte, x any) []byte {
	k, x := classify(x)
	switch k {
	case kindNull:
		return append(b, 'n')
	case kindBool:
		if x.(bool) {
			return append(b, 't')
		}
		return append(b, 'f')
	case kindString:
		return strconv.AppendQuote(append(b, 's'), x.(string))
	case kindInt:
		return strconv.AppendInt(append(b, 'i'), x.(int64), 10)
	case kindFloat:
		f := x.(float64)
		if f == math.Trunc(f) && f >= math.MinInt64 && f < math.MaxInt64 {
			return strconv.AppendInt(append(b, 'i'), int64(f), 10)
		}
		return strconv.AppendFloat(append(b, 'd'), f, 'g', -1, 64)
	case kindArray:
		b = append(b, '[')
		for _, e := range x.([]any) {
			b = append(appendKey(b, e), ',')
		}
		return append(b, ']')
	case kindObject:
		m := x.(map[string]any)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b = append(b, '{')
		for _, k := range keys {
			b = strconv.AppendQuote(b, k)
			b = append(appendKey(append(b, ':'), m[k]), ',')
		}
		return append(b, '}')
	}
	return append(b, '?')
}
