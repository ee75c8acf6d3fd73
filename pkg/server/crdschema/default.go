package crdschema

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Default fills in, in place, the schema's defaults with kube's
// semantics: a property with a default is set when it is missing from an
// object that is present, or when it is null and not nullable; list items
// and additionalProperties values that are null and not nullable get their
// schema's default. Defaults are copied, and a default object is itself
// defaulted, because defaulting descends into what it just set.
func (s *Structural) Default(obj map[string]any) {
	if obj != nil {
		applyDefaults(obj, s.root)
	}
}

func applyDefaults(x any, n *node) {
	if n == nil || !n.has(fSubtreeDefaults) {
		return
	}
	switch x := x.(type) {
	case map[string]any:
		for i := range n.props {
			p := &n.props[i]
			if p.node.def == nil {
				continue
			}
			if v, ok := x[p.name]; !ok || v == nil && !p.node.has(fNullable) {
				x[p.name] = deepCopy(p.node.def)
			}
		}
		if n.addl == addlSchema {
			a := n.addlNode
			for k, v := range x {
				if c := n.child(k); c != nil {
					applyDefaults(v, c)
					continue
				}
				if v == nil && a.def != nil && !a.has(fNullable) {
					v = deepCopy(a.def)
					x[k] = v
				}
				applyDefaults(v, a)
			}
			return
		}
		for i := range n.props {
			p := &n.props[i]
			if !p.node.has(fSubtreeDefaults) {
				continue
			}
			if v, ok := x[p.name]; ok {
				applyDefaults(v, &p.node)
			}
		}
	case []any:
		it := n.items
		if it == nil {
			return
		}
		for i := range x {
			if x[i] == nil && it.def != nil && !it.has(fNullable) {
				x[i] = deepCopy(it.def)
			}
			applyDefaults(x[i], it)
		}
	}
}

// checkDefaults makes sure every default is pruned and valid against its
// own schema, as kube does when a CRD is written: otherwise defaulting
// would create objects the server then refuses, or that pruning changes.
// Defaults under additionalProperties are not checked, like in kube.
func (c *compiler) checkDefaults(n *node, p *field.Path) {
	if !n.has(fSubtreeDefaults) {
		return
	}
	if n.def != nil {
		dp := p.Child("default")
		cp := deepCopy(n.def)
		pr := pruner{}
		pr.prune(cp, n)
		if !EqualJSON(cp, n.def) {
			c.add(field.Invalid(dp, n.def, "must not have unknown fields"))
		}
		v := validator{embeddedAtTop: true}
		v.value(n, n.def)
		prefix := dp.String()
		for _, e := range sortByField(v.errs) {
			switch {
			case e.Field == "<nil>":
				e.Field = prefix
			case strings.HasPrefix(e.Field, "["):
				e.Field = prefix + e.Field
			default:
				e.Field = prefix + "." + e.Field
			}
			c.add(e)
		}
	}
	if n.items != nil {
		c.checkDefaults(n.items, p.Child("items"))
	}
	for i := range n.props {
		c.checkDefaults(&n.props[i].node, p.Child("properties").Key(n.props[i].name))
	}
}
