package crdschema

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// smallList is the length up to which duplicates are found by pairwise
// comparison, which allocates nothing; longer lists use a map.
const smallList = 16

// listSet reports every value of an x-kubernetes-list-type=set list that
// repeats, once, at the index where it first repeats, as kube does.
func (v *validator) listSet(a []any) {
	for _, i := range duplicates(a, false) {
		v.pushIndex(i)
		v.add(field.Duplicate(v.fieldPath(), a[i]))
		v.pop()
	}
}

// duplicates returns the indexes at which values repeat for the first
// time; with any it stops at the first one.
func duplicates(a []any, firstOnly bool) []int {
	if len(a) < 2 {
		return nil
	}
	var dups []int
	if len(a) <= smallList {
		for i := 1; i < len(a); i++ {
			seen := 0
			for j := 0; j < i && seen < 2; j++ {
				if EqualJSON(a[i], a[j]) {
					seen++
				}
			}
			if seen == 1 {
				if dups = append(dups, i); firstOnly {
					return dups
				}
			}
		}
		return dups
	}
	counts := make(map[string]int, len(a))
	var buf []byte
	for i, x := range a {
		buf = appendKey(buf[:0], x)
		c := counts[string(buf)]
		counts[string(buf)] = c + 1
		if c == 1 {
			if dups = append(dups, i); firstOnly {
				return dups
			}
		}
	}
	return dups
}

// listMap checks an x-kubernetes-list-type=map list: items are objects,
// every key is set and no two items have the same key values.
func (v *validator) listMap(n *node, a []any) {
	for i, x := range a {
		if _, ok := x.(map[string]any); x != nil && !ok {
			v.pushIndex(i)
			v.add(field.Invalid(v.fieldPath(), x, "must be an object for an array of list-type map"))
			v.pop()
			return
		}
	}
	var required []string
	if n.items != nil {
		required = n.items.required
	}
	for i, x := range a {
		m, _ := x.(map[string]any)
		if m == nil {
			continue
		}
		for _, k := range n.mapKeys {
			if _, ok := m[k]; !ok && !contains(required, k) {
				v.pushIndex(i)
				v.push(k)
				v.add(field.Required(v.fieldPath(), ""))
				v.pop()
				v.pop()
			}
		}
	}
	if len(a) < 2 {
		return
	}
	var dups []int
	if len(a) <= smallList {
		for i := 1; i < len(a); i++ {
			seen := 0
			for j := 0; j < i && seen < 2; j++ {
				if sameKeys(n.mapKeys, a[i], a[j]) {
					seen++
				}
			}
			if seen == 1 {
				dups = append(dups, i)
			}
		}
	} else {
		counts := make(map[string]int, len(a))
		var buf []byte
		for i, x := range a {
			buf = buf[:0]
			m, _ := x.(map[string]any)
			for _, k := range n.mapKeys {
				if kv, ok := m[k]; ok {
					buf = appendKey(append(buf, '+'), kv)
				} else {
					buf = append(buf, '-')
				}
			}
			c := counts[string(buf)]
			counts[string(buf)] = c + 1
			if c == 1 {
				dups = append(dups, i)
			}
		}
	}
	for _, i := range dups {
		v.pushIndex(i)
		v.add(field.Duplicate(v.fieldPath(), keyValues(n.mapKeys, a[i])))
		v.pop()
	}
}

// sameKeys compares two list-map items by their keys; an unset key (or a
// null item) only equals another unset key.
func sameKeys(keys []string, x, y any) bool {
	mx, _ := x.(map[string]any)
	my, _ := y.(map[string]any)
	for _, k := range keys {
		vx, okx := mx[k]
		vy, oky := my[k]
		if okx != oky || okx && !EqualJSON(vx, vy) {
			return false
		}
	}
	return true
}

// keyValues is the value kube reports for a duplicate list-map item: its
// key fields.
func keyValues(keys []string, x any) map[string]any {
	m, _ := x.(map[string]any)
	out := make(map[string]any, len(keys))
	for _, k := range keys {
		if kv, ok := m[k]; ok {
			out[k] = kv
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
