package crdschema

import (
	"fmt"
	"strings"
)

// This file is the one correlation of a new object's values with the old
// object's for ratcheting, as kube's CorrelatedObject does it, shared by
// ValidateUpdate and the CEL rules' ratcheting (package cel): properties
// and additionalProperties entries match by key; items of
// x-kubernetes-list-type: map lists by their map keys; items of any other
// list not at all, so they ratchet only with the whole list; apiVersion and
// kind of the object root not at all.

// Correlated is a value of the new object with what it matches in the old
// one.
type Correlated struct {
	Old     any
	Matched bool // Old is the value's counterpart (which may be null)
}

// Field is the correlation of the value of key in an object correlated as
// c; root says the object is a resource root, whose apiVersion and kind kube
// cannot tell apart in old and new (both are converted to the version being
// written), so they never match.
func (c Correlated) Field(key string, root bool) Correlated {
	if !c.Matched || root && (key == "apiVersion" || key == "kind") {
		return Correlated{}
	}
	m, ok := c.Old.(map[string]any)
	if !ok {
		return Correlated{}
	}
	old, ok := m[key]
	return Correlated{Old: old, Matched: ok}
}

// Shape is what the correlation needs of a schema node: S is the node
// type, whose methods accept the nil node (no schema).
type Shape[S any] interface {
	comparable
	// FieldShape is the schema of the value of key in an object of this
	// schema, nil when it has none.
	FieldShape(key string) S
	// MapListShape returns the items' schema and map keys of an
	// x-kubernetes-list-type: map list; ok is false for other schemas.
	MapListShape() (items S, keys []string, ok bool)
}

// Unchanged reports whether x, a value of schema s, equals its correlated
// old value the way kube's CorrelatedObject.CachedDeepEqual compares them:
// objects key by key, each key needing a schema (so a preserved unknown
// field counts as a change); map lists item by item by key, in any order;
// all other lists as a whole. Scalars compare as JSON values.
func Unchanged[S Shape[S]](s S, x, old any) bool {
	var none S
	switch v := x.(type) {
	case nil:
		return old == nil
	case map[string]any:
		o, ok := old.(map[string]any)
		if !ok || len(v) != len(o) {
			return false
		}
		for k, e := range v {
			oe, ok := o[k]
			if !ok {
				return false
			}
			c := s.FieldShape(k)
			if c == none || !Unchanged(c, e, oe) {
				return false
			}
		}
		return true
	case []any:
		o, ok := old.([]any)
		if !ok || len(v) != len(o) {
			return false
		}
		items, keys, isMap := s.MapListShape()
		if !isMap {
			return EqualJSON(x, old) // as given: boxing v and o again would allocate
		}
		m := NewMapListMatcher(keys, o)
		for _, e := range v {
			oe := m.Match(e)
			if oe == nil || !Unchanged(items, e, oe) {
				return false
			}
		}
		return true
	}
	return old != nil && EqualJSON(x, old)
}

// MapListMatcher finds the item of an old x-kubernetes-list-type: map list
// that has the same map keys as a new item, like kube's MapList: keys must
// be scalars, integers and floats never match each other, and the first of
// several old items with one key wins. Short lists are searched; longer
// ones are indexed as far as the search has come.
type MapListMatcher struct {
	keys    []string
	old     []any // all old items, for short lists
	unkeyed []any // old items not yet indexed, for long lists
	index   map[any]any
}

// NewMapListMatcher matches items with the items of old by keys. It is a
// value so that a walk can keep it without allocating.
func NewMapListMatcher(keys []string, old []any) MapListMatcher {
	if len(old) <= smallList {
		return MapListMatcher{keys: keys, old: old}
	}
	return MapListMatcher{keys: keys, unkeyed: old}
}

// Match returns the old item matching x, or nil.
func (c *MapListMatcher) Match(x any) any {
	m, ok := x.(map[string]any)
	if !ok {
		return nil
	}
	if c.old != nil {
		for _, o := range c.old {
			if om, ok := o.(map[string]any); ok && sameMapKeys(c.keys, m, om) {
				return om
			}
		}
		return nil
	}
	k, ok := mapKey(c.keys, m)
	if !ok {
		return nil
	}
	if old, ok := c.index[k]; ok {
		return old
	}
	for len(c.unkeyed) > 0 {
		o := c.unkeyed[0]
		c.unkeyed = c.unkeyed[1:]
		om, ok := o.(map[string]any)
		if !ok {
			continue
		}
		ok2, ok := mapKey(c.keys, om)
		if !ok {
			continue
		}
		if c.index == nil {
			c.index = make(map[any]any)
		}
		if _, dup := c.index[ok2]; !dup {
			c.index[ok2] = om
		}
		if ok2 == k {
			return om
		}
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

// mapKey is a comparable value that two items share when sameMapKeys says
// they match: the scalar itself for one key, else the keys rendered as
// kube renders them, in forms that no two types share.
func mapKey(keys []string, m map[string]any) (any, bool) {
	if len(keys) == 1 {
		v, ok := m[keys[0]]
		if !ok || !scalarKey(v) {
			return nil, false
		}
		return v, true
	}
	var b strings.Builder
	for _, k := range keys {
		v, ok := m[k]
		if !ok {
			return nil, false
		}
		b.WriteByte(0) // never part of a formatted value below
		switch x := v.(type) {
		case bool:
			fmt.Fprintf(&b, "%t", x)
		case float64:
			fmt.Fprintf(&b, "%f", x)
		case int64:
			fmt.Fprintf(&b, "%d", x)
		case string:
			fmt.Fprintf(&b, "%q", x)
		default:
			return nil, false
		}
	}
	return b.String(), true
}
