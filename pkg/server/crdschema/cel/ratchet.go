package cel

import "github.com/setpoint-dev/setpoint/pkg/server/crdschema"

// Validation ratcheting of rules, as kube-apiserver does it (KEP-4008,
// feature CRDValidationRatcheting, on by default since 1.30, GA in 1.33).
//
// On update every rule is evaluated as usual, but the failure of a rule that
// does not use oldSelf is dropped when the value the rule is attached to is
// unchanged from the old object (and handed to the context's WithWarnings
// function, kube sending it as a warning); transition rules never ratchet.
// Runtime errors of a rule (no such key, overflow, cost limits) are not
// failures and do not ratchet either.
//
// Nodes are matched with old values the way kube's CorrelatedObject does it
// for ratcheting, with package crdschema's correlation (Correlated,
// MapListMatcher, Unchanged), the one its ValidateUpdate uses. That goes
// further than the matching of transition rules:
// properties and additionalProperties entries by key, items of map lists by
// their map keys. Items of all other lists (sets, atomic lists, and lists
// without a list type, which kube takes as atomic) are not matched, not even
// by index, nor are apiVersion and kind at the root. A node that cannot be
// matched ratchets when its nearest matched ancestor is unchanged, which for
// the item of a list means the whole list is unchanged and otherwise never
// holds.
//
// Unchanged means equal as kube compares matched values, guided by the
// rule's type: objects key by key, where a key the type does not declare
// (a preserved unknown field, or ObjectMeta beyond name and generateName)
// counts as a change; map lists item by item in any order; other lists as a
// whole. Scalars compare as JSON values (1 equals 1.0).
//
// The compiled tree records map keys wherever it has a list node, so map
// lists are told apart even where no rule's type describes them.

// rstate is the ratcheting state of a node.
type rstate struct {
	cur crdschema.Correlated // the node's old value, if it is matched with one
	// peq, for a node that is not matched, says whether its nearest
	// matched ancestor is unchanged.
	peq bool
	t   *declType // the node's type where known
}

// unchanged reports whether obj, the node's value, is unchanged.
func (rs *rstate) unchanged(obj any) bool {
	if rs.cur.Matched {
		return crdschema.Unchanged(rs.t, obj, rs.cur.Old)
	}
	return rs.peq
}

// fieldState is the state of property name (prop) or additionalProperties
// entry of the node in state rs; n is the child's compiled node.
func (w *walker) fieldState(rs rstate, n *node, name string, prop bool) rstate {
	var c rstate
	if n.t == nil && rs.t != nil { // the child's own type takes over
		switch {
		case prop:
			if f := rs.t.fieldByJSON(name); f != nil {
				c.t = f.t
			}
		case rs.t.kind == kindMap:
			c.t = rs.t.elem
		}
	}
	if rs.cur.Matched {
		c.cur = rs.cur.Field(name, prop && len(w.steps) == 0)
	} else {
		c.peq = rs.peq
	}
	return c
}

// ratchetList matches the items of a list with old items.
type ratchetList struct {
	rs    rstate   // the list's
	old   []any    // the old list, if the list is matched with one
	isOld bool     // old is a list
	whole bool     // items are not matched one by one, only the whole list
	same  bool     // for such lists, the list is unchanged
	keys  []string // map keys of a map list
	own   crdschema.MapListMatcher
	// shared says the transition rules' matcher works on the same old
	// list, so that its answers are reused instead of own's.
	shared bool
}

// newRatchetList prepares the matching of the items of list, of node n in
// state rs; transition and transitionOld are the transition rules'
// matcher, if any, and the old list it works on.
func newRatchetList(n *node, list []any, rs rstate, transition *crdschema.MapListMatcher, transitionOld []any) ratchetList {
	l := ratchetList{rs: rs, keys: n.mapKeys}
	if !rs.cur.Matched {
		return l
	}
	l.old, l.isOld = rs.cur.Old.([]any)
	if !l.isOld {
		return l
	}
	switch {
	case len(l.keys) > 0:
		l.own = crdschema.NewMapListMatcher(l.keys, l.old)
		l.shared = transition != nil && len(transitionOld) == len(l.old) && &transitionOld[0] == &l.old[0]
	default:
		l.whole = true
		l.same = crdschema.EqualJSON(list, l.old)
	}
	return l
}

// item returns the state of an item, x; transitionOld is what the transition
// rules' matcher matched x with.
func (l *ratchetList) item(x, transitionOld any) rstate {
	var c rstate
	if t := l.rs.t; t != nil && t.kind == kindList {
		c.t = t.elem
	}
	switch {
	case !l.rs.cur.Matched:
		c.peq = l.rs.peq
	case !l.isOld:
		// the old value was not a list: the list changed
	case len(l.keys) > 0:
		old := transitionOld
		if !l.shared {
			old = l.own.Match(x)
		}
		if old != nil {
			c.cur = crdschema.Correlated{Old: old, Matched: true}
		}
	case l.whole:
		c.peq = l.same
	}
	return c
}

// FieldShape is the type of the value of key in an object of type t, for
// crdschema.Unchanged: nil where the type declares no such key.
func (t *declType) FieldShape(key string) *declType {
	if t == nil {
		return nil
	}
	switch t.kind {
	case kindObject:
		if f := t.fieldByJSON(key); f != nil {
			return f.t
		}
	case kindMap:
		return t.elem
	}
	return nil
}

// MapListShape returns the item type and keys of a map list, for
// crdschema.Unchanged.
func (t *declType) MapListShape() (*declType, []string, bool) {
	if t == nil || t.kind != kindList || t.list != listMap {
		return nil, nil, false
	}
	return t.elem, t.mapKeys, true
}
