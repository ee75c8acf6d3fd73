package crdschema

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Validate checks a custom object (after pruning and defaulting) and
// returns one field error per bad field, paths like spec.replicas, with
// kube's error types and messages, e.g.
//
//	spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10
//
// Root metadata is checked only against what the schema says about
// metadata.name and metadata.generateName; the rest of ObjectMeta, and the
// root apiVersion and kind, are the server's business. Errors are sorted
// by field path.
func (s *Structural) Validate(obj map[string]any) field.ErrorList {
	if obj == nil {
		obj = map[string]any{}
	}
	var v validator
	v.start()
	v.value(s.root, obj)
	v.done()
	return sortByField(v.errs)
}

type validator struct {
	walker
	errs field.ErrorList
	// embeddedAtTop checks the value handed to the first call as an
	// embedded resource if its schema says so; the object root never is.
	embeddedAtTop bool
	// rat is set by ValidateUpdate: children are then walked together
	// with their old values (see ratchet.go). Validate leaves it nil.
	rat *ratchet
}

func (v *validator) add(e *field.Error) { v.errs = append(v.errs, e) }

// sortByField orders errors deterministically, keeping the order in which
// errors about one field were found.
func sortByField(errs field.ErrorList) field.ErrorList {
	if len(errs) > 1 {
		sort.SliceStable(errs, func(i, j int) bool { return errs[i].Field < errs[j].Field })
	}
	return errs
}

// msg formats kube's "<name> in body <what>" messages; kube leaves a stray
// space for the root, which has no name.
func msg(name, format string, args ...any) string {
	return strings.TrimPrefix(name+" in body "+fmt.Sprintf(format, args...), " ")
}

func (v *validator) value(n *node, x any) {
	k, x := classify(x)
	if k == kindNull {
		v.null(n)
		return
	}
	if n.typ != typeAny && !typeAccepts(n.typ, k, x) {
		v.typeError(n, k)
		return
	}
	ck := n.v
	if ck != nil && ck.junctors() {
		if r := v.rat; r != nil {
			// kube validates what allOf/anyOf/oneOf/not say without
			// ratcheting below them: their errors belong to this node.
			v.rat = nil
			v.junctors(ck, x)
			v.rat = r
		} else {
			v.junctors(ck, x)
		}
	}
	switch k {
	case kindString:
		if ck != nil {
			v.str(ck, x.(string))
		}
	case kindInt, kindFloat:
		if ck != nil || n.numFmt != numFormatNone {
			v.number(n, k, x)
		}
	case kindArray:
		v.array(n, x.([]any))
	case kindObject:
		v.object(n, x.(map[string]any))
	}
	if ck != nil && len(ck.enum) > 0 {
		v.enum(ck, x)
	}
}

func typeAccepts(t jsonType, k kind, x any) bool {
	switch t {
	case typeString:
		return k == kindString
	case typeInteger:
		return k == kindInt || k == kindFloat && isJSONInteger(x.(float64))
	case typeNumber:
		return k == kindInt || k == kindFloat
	case typeBoolean:
		return k == kindBool
	case typeObject:
		return k == kindObject
	case typeArray:
		return k == kindArray
	case typeIntOrString:
		return k == kindString || k == kindInt || k == kindFloat && isJSONInteger(x.(float64))
	}
	return true
}

func (v *validator) null(n *node) {
	if n.typ != typeAny && !n.has(fNullable) {
		v.add(field.TypeInvalid(v.fieldPath(), "null", msg(v.name(), "must be of type %s: %q", typeNames[n.typ], "null")))
	}
	if ck := n.v; ck != nil && len(ck.enum) > 0 && !n.has(fEnumHasNull) {
		v.add(field.NotSupported(v.fieldPath(), nil, ck.enumStrings))
	}
}

func (v *validator) typeError(n *node, k kind) {
	// Like kube, a node with a format names the format rather than the
	// type when a non-string value does not fit it.
	if ck := n.v; ck != nil && ck.formatName != "" && k != kindString && k != kindArray {
		got := ""
		switch k {
		case kindInt:
			got = "int64"
		case kindFloat:
			got = "float64"
		}
		if got != ck.formatName {
			v.add(field.TypeInvalid(v.fieldPath(), got, msg(v.name(), "must be of type %s: %q", ck.formatName, got)))
			return
		}
	}
	v.add(field.TypeInvalid(v.fieldPath(), kindNames[k], msg(v.name(), "must be of type %s: %q", typeNames[n.typ], kindNames[k])))
}

func (v *validator) str(ck *checks, s string) {
	if ck.limSet&(1<<limMinLength|1<<limMaxLength) != 0 {
		l := int64(utf8.RuneCountInString(s))
		switch {
		case ck.has(limMaxLength) && l > ck.lim[limMaxLength]:
			v.add(field.TooLong(v.fieldPath(), "", int(ck.lim[limMaxLength])))
		case ck.has(limMinLength) && l < ck.lim[limMinLength]:
			v.add(field.Invalid(v.fieldPath(), s, msg(v.name(), "should be at least %d chars long", ck.lim[limMinLength])))
		case ck.pattern != nil && !ck.pattern.MatchString(s):
			v.add(field.Invalid(v.fieldPath(), s, msg(v.name(), "should match '%s'", ck.pattern.String())))
		}
	} else if ck.pattern != nil && !ck.pattern.MatchString(s) {
		v.add(field.Invalid(v.fieldPath(), s, msg(v.name(), "should match '%s'", ck.pattern.String())))
	}
	if ck.format != nil && !ck.format(s) {
		v.add(field.TypeInvalid(v.fieldPath(), s, msg(v.name(), "must be of type %s: %q", ck.formatName, s)))
	}
}

// number checks the numeric format range and bounds. Integers are compared
// as integers where the bound allows, so that large int64 values are not
// rounded through float64.
func (v *validator) number(n *node, k kind, x any) {
	isInt := k == kindInt
	var i int64
	var f float64
	if isInt {
		i = x.(int64)
		f = float64(i)
	} else {
		f = x.(float64)
	}
	switch n.numFmt {
	case numFormatInt32:
		if f < math.MinInt32 || f > math.MaxInt32 {
			v.add(field.Invalid(v.fieldPath(), x, fmt.Sprintf("Checked value must be of type integer with format int32 in %s", v.name())))
		}
	case numFormatFloat:
		if math.IsInf(float64(float32(f)), 0) {
			v.add(field.Invalid(v.fieldPath(), x, fmt.Sprintf("Checked value must be of type number with format float in %s", v.name())))
		}
	}
	ck := n.v
	if ck == nil {
		return
	}
	if ck.hasMultOf {
		m := ck.multipleOf
		switch {
		case m <= 0:
			v.add(field.Invalid(v.fieldPath(), x, fmt.Sprintf("factor MultipleOf declared for %s must be positive: %s", v.name(), formatBound(isInt, m))))
		case !isMultiple(isInt, i, f, m):
			v.add(field.Invalid(v.fieldPath(), x, msg(v.name(), "should be a multiple of %s", formatBound(isInt, m))))
		}
	}
	if ck.hasMinimum {
		c := compareBound(isInt, i, f, ck.minimum)
		if ex := n.has(fExclusiveMinimum); ex && c <= 0 {
			v.add(field.Invalid(v.fieldPath(), x, msg(v.name(), "should be greater than %s", formatBound(isInt, ck.minimum))))
		} else if !ex && c < 0 {
			v.add(field.Invalid(v.fieldPath(), x, msg(v.name(), "should be greater than or equal to %s", formatBound(isInt, ck.minimum))))
		}
	}
	if ck.hasMaximum {
		c := compareBound(isInt, i, f, ck.maximum)
		if ex := n.has(fExclusiveMaximum); ex && c >= 0 {
			v.add(field.Invalid(v.fieldPath(), x, msg(v.name(), "should be less than %s", formatBound(isInt, ck.maximum))))
		} else if !ex && c > 0 {
			v.add(field.Invalid(v.fieldPath(), x, msg(v.name(), "should be less than or equal to %s", formatBound(isInt, ck.maximum))))
		}
	}
}

// asInt64 reports whether b is integral and within int64, and its value.
func asInt64(b float64) (int64, bool) {
	if b == math.Trunc(b) && b >= math.MinInt64 && b < math.MaxInt64 {
		return int64(b), true
	}
	return 0, false
}

func compareBound(isInt bool, i int64, f, b float64) int {
	if isInt {
		if bi, ok := asInt64(b); ok {
			switch {
			case i < bi:
				return -1
			case i > bi:
				return 1
			}
			return 0
		}
	}
	switch {
	case f < b:
		return -1
	case f > b:
		return 1
	}
	return 0
}

func isMultiple(isInt bool, i int64, f, m float64) bool {
	if isInt {
		if mi, ok := asInt64(m); ok && mi > 0 {
			return i%mi == 0
		}
	}
	var q float64
	if m < 1 {
		q = 1 / m * f
	} else {
		q = f / m
	}
	return isJSONInteger(q)
}

// formatBound prints a bound as kube does: as an integer when compared
// with an integer, otherwise with Go's %v for floats.
func formatBound(isInt bool, b float64) string {
	if isInt {
		if bi, ok := asInt64(b); ok {
			return strconv.FormatInt(bi, 10)
		}
	}
	return fmt.Sprint(b)
}

func (v *validator) array(n *node, a []any) {
	if n.items != nil && v.rat != nil {
		v.ratchetItems(n, a)
	} else if n.items != nil {
		for i := range a {
			v.pushIndex(i)
			v.value(n.items, a[i])
			v.pop()
		}
	}
	if ck := n.v; ck != nil {
		if ck.has(limMinItems) && int64(len(a)) < ck.lim[limMinItems] {
			v.add(field.Invalid(v.fieldPath(), int64(len(a)), msg(v.name(), "should have at least %d items", ck.lim[limMinItems])))
		}
		if ck.has(limMaxItems) && int64(len(a)) > ck.lim[limMaxItems] {
			v.add(field.TooMany(v.fieldPath(), len(a), int(ck.lim[limMaxItems])))
		}
	}
	if n.has(fUniqueItems) && len(duplicates(a, true)) > 0 {
		v.add(field.Invalid(v.fieldPath(), "", msg(v.name(), "shouldn't contain duplicates")))
	}
	if n.listType != listAtomic {
		mark := len(v.errs)
		if n.listType == listSet {
			v.listSet(a)
		} else {
			v.listMap(n, a)
		}
		if v.rat != nil {
			v.rat.listErrs = v.rat.setAside(v.rat.listErrs, &v.errs, mark)
		}
	}
}

func (v *validator) object(n *node, m map[string]any) {
	if ck := n.v; ck != nil {
		if ck.has(limMinProperties) && int64(len(m)) < ck.lim[limMinProperties] {
			v.add(field.Invalid(v.fieldPath(), int64(len(m)), msg(v.name(), "should have at least %d properties", ck.lim[limMinProperties])))
		}
		if ck.has(limMaxProperties) && int64(len(m)) > ck.lim[limMaxProperties] {
			v.add(field.TooMany(v.fieldPath(), len(m), int(ck.lim[limMaxProperties])))
		}
	}
	switch {
	case v.rat != nil:
		v.ratchetFields(n, m)
	case n.addl == addlSchema:
		for k, x := range m {
			v.push(k)
			v.value(n.fieldSchema(k), x)
			v.pop()
		}
	case len(m) < len(n.props):
		for k, x := range m {
			if c := n.child(k); c != nil {
				v.push(k)
				v.value(c, x)
				v.pop()
			}
		}
	default:
		for i := range n.props {
			p := &n.props[i]
			if x, ok := m[p.name]; ok {
				v.push(p.name)
				v.value(&p.node, x)
				v.pop()
			}
		}
	}
	if n.addl == addlFalse {
		v.forbiddenProperties(n, m)
	}
	for _, r := range n.required {
		if _, ok := m[r]; !ok {
			v.add(field.Required(v.fieldPath().Child(r), ""))
		}
	}
	if n.has(fEmbedded) && (len(v.segs) > 0 || v.embeddedAtTop) {
		mark := len(v.errs)
		v.embedded(m)
		if v.rat != nil {
			v.rat.keep = v.rat.setAside(v.rat.keep, &v.errs, mark)
		}
	}
}

func (v *validator) forbiddenProperties(n *node, m map[string]any) {
	var extra []string
	for k := range m {
		if n.child(k) == nil {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	for _, k := range extra {
		v.add(field.Invalid(v.fieldPath(), k, strings.TrimPrefix(fmt.Sprintf("%s.%s in body is a forbidden property", v.name(), k), ".")))
	}
}

func (v *validator) enum(ck *checks, x any) {
	if s, ok := x.(string); ok {
		if ck.enumSet != nil {
			if _, ok := ck.enumSet[s]; ok {
				return
			}
		} else {
			for _, e := range ck.enum {
				if es, ok := e.(string); ok && es == s {
					return
				}
			}
		}
	} else {
		for _, e := range ck.enum {
			if EqualJSON(x, e) {
				return
			}
		}
	}
	v.add(field.NotSupported(v.fieldPath(), x, ck.enumStrings))
}

// junctors evaluates anyOf, oneOf, allOf and not like kube's validator:
// each alternative is validated into the shared error list and its errors
// are kept or dropped afterwards. For a failed anyOf or oneOf the errors of
// the closest alternative (fewest errors) are reported with the summary.
func (v *validator) junctors(ck *checks, x any) {
	if len(ck.anyOf) > 0 {
		var best field.ErrorList
		ok := false
		for _, a := range ck.anyOf {
			mark := len(v.errs)
			v.value(a, x)
			if len(v.errs) == mark {
				ok = true
				break
			}
			if best == nil || len(v.errs)-mark < len(best) {
				best = append(field.ErrorList(nil), v.errs[mark:]...)
			}
			v.errs = v.errs[:mark]
		}
		if !ok {
			v.add(field.Invalid(v.fieldPath(), "", fmt.Sprintf("%q must validate at least one schema (anyOf)", v.name())))
			v.errs = append(v.errs, best...)
		}
	}
	if len(ck.oneOf) > 0 {
		var best field.ErrorList
		valid := 0
		for _, a := range ck.oneOf {
			mark := len(v.errs)
			v.value(a, x)
			if len(v.errs) == mark {
				valid++
				continue
			}
			if best == nil || len(v.errs)-mark < len(best) {
				best = append(field.ErrorList(nil), v.errs[mark:]...)
			}
			v.errs = v.errs[:mark]
		}
		switch valid {
		case 1:
		case 0:
			v.add(field.Invalid(v.fieldPath(), "", fmt.Sprintf("%q must validate one and only one schema (oneOf). Found none valid", v.name())))
			v.errs = append(v.errs, best...)
		default:
			v.add(field.Invalid(v.fieldPath(), "", fmt.Sprintf("%q must validate one and only one schema (oneOf). Found %d valid alternatives", v.name(), valid)))
		}
	}
	if len(ck.allOf) > 0 {
		failed := 0
		for _, a := range ck.allOf {
			mark := len(v.errs)
			v.value(a, x)
			if len(v.errs) > mark {
				failed++
			}
		}
		if failed > 0 {
			suffix := ""
			if failed == len(ck.allOf) {
				suffix = ". None validated"
			}
			v.add(field.Invalid(v.fieldPath(), "", fmt.Sprintf("%q must validate all the schemas (allOf)%s", v.name(), suffix)))
		}
	}
	if ck.not != nil {
		mark := len(v.errs)
		v.value(ck.not, x)
		valid := len(v.errs) == mark
		v.errs = v.errs[:mark]
		if valid {
			v.add(field.Invalid(v.fieldPath(), "", fmt.Sprintf("%q must not validate the schema (not)", v.name())))
		}
	}
}
