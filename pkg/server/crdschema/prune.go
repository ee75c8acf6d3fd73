package crdschema

import "sort"

// Prune removes, in place, every field of a custom object not specified by
// the schema, except under x-kubernetes-preserve-unknown-fields and except
// apiVersion, kind and metadata at the root and in embedded resources,
// which it leaves alone. It returns the paths of what it removed as kube
// reports them for fieldValidation ("spec.foo", "spec.items[0].bar"),
// sorted.
//
// Like kube's write path, Prune also drops null values of fields that are
// not nullable and have no default: they mean "unset". Nulls of fields
// with a default are left for Default to replace.
func (s *Structural) Prune(obj map[string]any) []string {
	p := pruner{dropNulls: true}
	p.start()
	p.prune(obj, s.root)
	p.done()
	sort.Strings(p.removed)
	return p.removed
}

type pruner struct {
	walker
	dropNulls bool
	removed   []string
}

func (p *pruner) record(k string) {
	p.removed = append(p.removed, p.childName(k))
}

// dropsNull reports whether a null value of a field with schema n means
// the field is unset.
func dropsNull(n *node) bool {
	return n != nil && !n.has(fNullable) && n.def == nil
}

// prune follows kube's algorithm: without a schema every field goes;
// preserve-unknown-fields keeps unknown fields but still prunes inside
// the known ones.
func (p *pruner) prune(x any, n *node) {
	if n != nil && n.has(fPreserveUnknown) {
		p.skipPrune(x, n)
		return
	}
	switch x := x.(type) {
	case map[string]any:
		if n == nil {
			for k := range x {
				p.record(k)
				delete(x, k)
			}
			return
		}
		for k, v := range x {
			if n.has(fKeepMeta) && isMetaField(k) {
				continue
			}
			c := n.child(k)
			if c == nil && n.addl == addlNone {
				p.record(k)
				delete(x, k)
				continue
			}
			if c == nil {
				c = n.addlNode // nil for additionalProperties: true/false
			}
			if v == nil && p.dropNulls && dropsNull(c) {
				delete(x, k)
				continue
			}
			p.push(k)
			p.prune(v, c)
			p.pop()
		}
	case []any:
		var items *node
		if n != nil {
			items = n.items
		}
		for i, v := range x {
			p.pushIndex(i)
			p.prune(v, items)
			p.pop()
		}
	}
}

func (p *pruner) skipPrune(x any, n *node) {
	switch x := x.(type) {
	case map[string]any:
		for k, v := range x {
			if n.has(fKeepMeta) && isMetaField(k) {
				continue
			}
			c := n.child(k)
			if c == nil {
				if n.addl == addlNone {
					continue // unknown, but preserved
				}
				c = n.addlNode
			}
			if v == nil && p.dropNulls && dropsNull(c) {
				delete(x, k)
				continue
			}
			p.push(k)
			p.prune(v, c)
			p.pop()
		}
	case []any:
		// kube hands preservation down to the items of a preserving list.
		if n.items == nil {
			return
		}
		for i, v := range x {
			p.pushIndex(i)
			p.skipPrune(v, n.items)
			p.pop()
		}
	}
}
