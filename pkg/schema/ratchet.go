package schema

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateUpdate checks obj, the new value of a custom object, like
// Validate, but with kube's CRD validation ratcheting (KEP-4008, on by
// default since Kubernetes 1.30, GA in 1.33): an update may keep invalid
// values that it does not change, so that tightening a schema leaves
// existing objects writable. old is the stored object; with old nil this
// is Validate.
//
// The rules are kube's:
//
//   - Every error of the OpenAPI value validations (type, nullable, format,
//     enum, pattern, min/maxLength, minimum/maximum, multipleOf,
//     min/maxItems, min/maxProperties, required, additionalProperties: false,
//     and allOf/anyOf/oneOf/not) belongs to the node whose schema raised it:
//     a required error to the object missing the field, a maxItems error to
//     the list. It is dropped when that node is unchanged, or when the
//     nearest ancestor that could be matched with an old value is.
//   - Nodes are matched with old values as kube's CorrelatedObject does:
//     object properties and additionalProperties entries by key; items of
//     x-kubernetes-list-type: map lists by their map keys; items of any
//     other list (set, atomic, or no list type, which is atomic) not at all,
//     not even by index, so their errors ratchet only when the whole list is
//     unchanged; apiVersion and kind of the object root not at all.
//   - Unchanged means equal as kube compares correlated values: objects
//     key by key, each key needing a schema (a preserved unknown field makes
//     an object count as changed, and so the object root, whose metadata
//     the schema never describes, always counts as changed); map lists item
//     by item by key, in any order; all other lists as a whole. Scalars
//     compare as JSON values, so 1 and 1.0 are equal.
//   - Nothing below allOf/anyOf/oneOf/not is matched on its own: their
//     errors ratchet only with the node that has the junctor.
//   - x-kubernetes-list-type errors (duplicates in sets and map lists,
//     list-map items that are not objects or lack a key) are reported only
//     if the old object has none, the all-or-nothing rule kube has applied
//     to list types since before KEP-4008.
//   - Errors of embedded resources' apiVersion, kind and metadata (kube's
//     built-in ObjectMeta validation) never ratchet.
//
// Dropped errors are not reported at all (kube turns them into warnings
// that the server does not send). Validate-valid objects cost what Validate
// costs; the ratcheting walk runs only when obj has errors.
func (s *Structural) ValidateUpdate(obj, old map[string]any) field.ErrorList {
	if old == nil {
		return s.Validate(obj)
	}
	if obj == nil {
		obj = map[string]any{}
	}
	if len(s.Validate(obj)) == 0 {
		return nil
	}
	r := ratchet{}
	v := validator{rat: &r}
	v.start()
	v.ratchetValue(s.root, obj, old, true)
	v.done()
	errs := v.errs
	if len(r.listErrs) > 0 && listTypesValid(s.root, old) {
		errs = append(errs, r.listErrs...)
	}
	errs = append(errs, r.keep...)
	return sortByField(errs)
}

// ratchet is the state of a ValidateUpdate walk.
type ratchet struct {
	// old is the value correlated with the node being validated, when
	// corr says there is one.
	old  any
	corr bool
	// listErrs are the list-type errors of the new object, kept apart
	// because they follow their own rule; keep are errors that never
	// ratchet.
	listErrs field.ErrorList
	keep     field.ErrorList
}

// setAside moves the errors from mark on out of the walk's list into to.
func (r *ratchet) setAside(to field.ErrorList, errs *field.ErrorList, mark int) field.ErrorList {
	if len(*errs) > mark {
		to = append(to, (*errs)[mark:]...)
		*errs = (*errs)[:mark]
	}
	return to
}

// ratchetValue validates x with old as its correlated value (when corr)
// and drops the errors of the node and below if x is unchanged.
func (v *validator) ratchetValue(n *node, x, old any, corr bool) {
	r := v.rat
	parentOld, parentCorr := r.old, r.corr
	r.old, r.corr = old, corr
	mark := len(v.errs)
	v.value(n, x)
	if len(v.errs) > mark && corr && unchanged(n, x, old) {
		clear(v.errs[mark:])
		v.errs = v.errs[:mark]
	}
	r.old, r.corr = parentOld, parentCorr
}

// ratchetFields validates the fields of an object that have a schema,
// each with the old value of the same key.
func (v *validator) ratchetFields(n *node, m map[string]any) {
	r := v.rat
	oldMap, isMap := r.old.(map[string]any)
	isMap = isMap && r.corr
	atRoot := len(v.segs) == 0
	for k, x := range m {
		c := n.fieldSchema(k)
		if c == nil {
			continue
		}
		var old any
		corr := false
		// kube cannot tell old and new apiVersion and kind apart: both
		// are converted to the version being written.
		if isMap && !(atRoot && (k == "apiVersion" || k == "kind")) {
			old, corr = oldMap[k]
		}
		v.push(k)
		v.ratchetValue(c, x, old, corr)
		v.pop()
	}
}

// ratchetItems validates the items of a list, each with its correlated old
// item if the list type allows one: only map lists have them.
func (v *validator) ratchetItems(n *node, a []any) {
	r := v.rat
	oldList, isList := r.old.([]any)
	var c *itemMatcher
	if isList && r.corr && n.listType == listMap {
		c = &itemMatcher{keys: n.mapKeys, old: oldList}
	}
	for i, x := range a {
		var old any
		if c != nil {
			old = c.match(x)
		}
		v.pushIndex(i)
		v.ratchetValue(n.items, x, old, old != nil)
		v.pop()
	}
}

// unchanged reports whether x equals old, where x is a value of schema n,
// the way kube's CorrelatedObject.CachedDeepEqual compares them.
func unchanged(n *node, x, old any) bool {
	kx, x := classify(x)
	ko, old := classify(old)
	if kx == kindNull || ko == kindNull {
		return kx == ko
	}
	switch kx {
	case kindObject:
		if ko != kindObject {
			return false
		}
		m, om := x.(map[string]any), old.(map[string]any)
		if len(m) != len(om) {
			return false
		}
		for k, e := range m {
			oe, ok := om[k]
			if !ok {
				return false
			}
			var c *node
			if n != nil {
				c = n.fieldSchema(k)
			}
			if c == nil || !unchanged(c, e, oe) {
				return false
			}
		}
		return true
	case kindArray:
		if ko != kindArray {
			return false
		}
		a, oa := x.([]any), old.([]any)
		if len(a) != len(oa) {
			return false
		}
		if n == nil || n.items == nil || n.listType != listMap {
			return EqualJSON(a, oa)
		}
		c := itemMatcher{keys: n.mapKeys, old: oa}
		for _, e := range a {
			oe := c.match(e)
			if oe == nil || !unchanged(n.items, e, oe) {
				return false
			}
		}
		return true
	}
	return EqualJSON(x, old)
}

// itemMatcher finds the old item of an x-kubernetes-list-type: map list
// that has the same map keys as a new item, like kube's MapList: keys must
// be scalars, integers and floats never match each other, and the first of
// several old items with one key wins. Short lists are searched, longer ones
// indexed once.
type itemMatcher struct {
	keys  []string
	old   []any
	index map[string]map[string]any
}

func (c *itemMatcher) match(x any) any {
	m, ok := x.(map[string]any)
	if !ok {
		return nil
	}
	if len(c.old) <= smallList {
		for _, o := range c.old {
			if om, ok := o.(map[string]any); ok && sameMapKeys(c.keys, m, om) {
				return om
			}
		}
		return nil
	}
	if c.index == nil {
		c.index = make(map[string]map[string]any, len(c.old))
		for _, o := range c.old {
			om, ok := o.(map[string]any)
			if !ok {
				continue
			}
			if k, ok := mapKey(c.keys, om); ok {
				if _, dup := c.index[k]; !dup {
					c.index[k] = om
				}
			}
		}
	}
	k, ok := mapKey(c.keys, m)
	if !ok {
		return nil
	}
	if om, ok := c.index[k]; ok {
		return om
	}
	return nil
}

// sameMapKeys reports whether two list-map items have the same scalar
// values for all keys, in kube's sense.
func sameMapKeys(keys []string, a, b map[string]any) bool {
	for _, k := range keys {
		va, okA := a[k]
		vb, okB := b[k]
		if !okA || !okB || !scalarKey(va) || !scalarKey(vb) {
			return false
		}
		if fa, ok := va.(float64); ok && len(keys) > 1 {
			// kube renders float keys of multi-key lists with %f
			fb, ok := vb.(float64)
			if !ok || fmt.Sprintf("%f", fa) != fmt.Sprintf("%f", fb) {
				return false
			}
			continue
		}
		if va != vb {
			return false
		}
	}
	return true
}

func scalarKey(v any) bool {
	switch v.(type) {
	case bool, int64, float64, string:
		return true
	}
	return false
}

// mapKey renders an item's map keys as one comparable string.
func mapKey(keys []string, m map[string]any) (string, bool) {
	var b strings.Builder
	for _, k := range keys {
		v, ok := m[k]
		if !ok {
			return "", false
		}
		b.WriteByte(0)
		switch x := v.(type) {
		case bool:
			fmt.Fprintf(&b, "b%t", x)
		case int64:
			fmt.Fprintf(&b, "i%d", x)
		case float64:
			if len(keys) > 1 {
				fmt.Fprintf(&b, "f%f", x)
			} else {
				fmt.Fprintf(&b, "f%v", x)
			}
		case string:
			fmt.Fprintf(&b, "s%q", x)
		default:
			return "", false
		}
	}
	return b.String(), true
}

// listTypesValid reports whether x holds no x-kubernetes-list-type errors
// under n: what kube checks of the old object before it checks the new
// one's list types.
func listTypesValid(n *node, x any) bool {
	if n == nil {
		return true
	}
	switch t := x.(type) {
	case map[string]any:
		for k, e := range t {
			if !listTypesValid(n.fieldSchema(k), e) {
				return false
			}
		}
	case []any:
		switch n.listType {
		case listSet:
			if len(duplicates(t, true)) > 0 {
				return false
			}
		case listMap:
			var v validator
			v.listMap(n, t)
			if len(v.errs) > 0 {
				return false
			}
		}
		for _, e := range t {
			if !listTypesValid(n.items, e) {
				return false
			}
		}
	}
	return true
}
