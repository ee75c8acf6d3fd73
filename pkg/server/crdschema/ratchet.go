package crdschema

import (
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
	v.ratchetValue(s.root, obj, Correlated{Old: old, Matched: true})
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
	// cur is the correlation of the node being validated.
	cur Correlated
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
func (v *validator) ratchetValue(n *node, x any, c Correlated) {
	r := v.rat
	parent := r.cur
	r.cur = c
	mark := len(v.errs)
	v.value(n, x)
	if len(v.errs) > mark && c.Matched && Unchanged(n, x, c.Old) {
		clear(v.errs[mark:])
		v.errs = v.errs[:mark]
	}
	r.cur = parent
}

// ratchetFields validates the fields of an object that have a schema,
// each with the old value of the same key.
func (v *validator) ratchetFields(n *node, m map[string]any) {
	cur := v.rat.cur
	atRoot := len(v.segs) == 0
	for k, x := range m {
		c := n.fieldSchema(k)
		if c == nil {
			continue
		}
		v.push(k)
		v.ratchetValue(c, x, cur.Field(k, atRoot))
		v.pop()
	}
}

// ratchetItems validates the items of a list, each with its correlated old
// item if the list type allows one: only map lists have them.
func (v *validator) ratchetItems(n *node, a []any) {
	cur := v.rat.cur
	oldList, isList := cur.Old.([]any)
	matched := isList && cur.Matched && n.listType == listMap
	var c MapListMatcher
	if matched {
		c = NewMapListMatcher(n.mapKeys, oldList)
	}
	for i, x := range a {
		var old any
		if matched {
			old = c.Match(x)
		}
		v.pushIndex(i)
		v.ratchetValue(n.items, x, Correlated{Old: old, Matched: old != nil})
		v.pop()
	}
}

// FieldShape is the schema of the value of key in an object of n, for
// Unchanged.
func (n *node) FieldShape(key string) *node {
	if n == nil {
		return nil
	}
	return n.fieldSchema(key)
}

// MapListShape returns the items' schema and keys of a map list, for
// Unchanged.
func (n *node) MapListShape() (*node, []string, bool) {
	if n == nil || n.items == nil || n.listType != listMap {
		return nil, nil, false
	}
	return n.items, n.mapKeys, true
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
