package schema

import (
	"math"
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

// jsonEqual compares decoded JSON values; numbers compare by value, so
// 1 (int64) equals 1.0 (float64) as they do in JSON.
func jsonEqual(a, b any) bool {
	ka, a := classify(a)
	kb, b := classify(b)
	switch ka {
	case kindInt, kindFloat:
		if kb != kindInt && kb != kindFloat {
			return false
		}
		if ka == kindInt && kb == kindInt {
			return a.(int64) == b.(int64)
		}
		return toFloat(a) == toFloat(b)
	}
	if ka != kb {
		return false
	}
	switch ka {
	case kindNull:
		return true
	case kindString:
		return a.(string) == b.(string)
	case kindBool:
		return a.(bool) == b.(bool)
	case kindArray:
		x, y := a.([]any), b.([]any)
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case kindObject:
		x, y := a.(map[string]any), b.(map[string]any)
		if len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !jsonEqual(xv, yv) {
				return false
			}
		}
		return true
	}
	return false
}

func toFloat(x any) float64 {
	switch v := x.(type) {
	case int64:
		return float64(v)
	case float64:
		return v
	}
	return math.NaN()
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
// jsonEqual encode identically, which lets long sets be checked for
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
