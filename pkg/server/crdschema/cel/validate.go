package cel

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/setpoint-dev/setpoint/pkg/server/crdschema"
)

// Validate evaluates the rules against a custom object obj (map[string]any
// decoded from JSON: integers are int64, other numbers float64) and, for
// updates, the old object (nil on create). Transition rules (those using
// oldSelf) are only evaluated when the old value at that node exists, unless
// optionalOldSelf is set, as kube does. On update, failures of rules that do
// not use oldSelf ratchet as in kube (KEP-4008): they are dropped when the
// rule's node is unchanged from the old object (see ratchet.go); transition
// rules never ratchet. Errors: one field.Error per failed
// rule at the node's path (field.NewPath("spec")..., or the rule's fieldPath
// if set; rules at the root have a nil path, as in kube), type from the
// rule's reason, detail = message, or messageExpression's result, or kube's
// default "failed rule: <rule>". Runtime cost is bounded by PerCallLimit per
// evaluation and RuntimeCELCostBudget per call of Validate; exceeding either
// is an Invalid error saying so and stops evaluation. A cancelled ctx stops
// evaluation too, with an InternalError.
func (v *Validator) Validate(ctx context.Context, obj, old map[string]any) field.ErrorList {
	if v == nil || v.root == nil || obj == nil {
		return nil
	}
	w := walker{ctx: ctx, budget: RuntimeCELCostBudget}
	w.steps = w.stepBuf[:0]
	var oldObj any
	if old != nil {
		oldObj = old
	}
	w.node(v.root, obj, oldObj)
	return w.errs
}

// walker is the state of one Validate call.
type walker struct {
	ctx    context.Context
	budget int64 // runtime cost left; below zero once exhausted
	errs   field.ErrorList
	act    activation // reused: rules are evaluated one at a time
	// ratchet is set on update: nodes are then walked with their rstate.
	ratchet bool
	// steps is the path to the current node. It becomes a field.Path only
	// for errors, so that valid objects cost no path allocations.
	steps   []step
	stepBuf [8]step
}

type step struct {
	name  string // property name or map key
	index int    // list index, when isIdx
	isKey bool
	isIdx bool
}

func (w *walker) path() *field.Path {
	var p *field.Path
	for _, s := range w.steps {
		switch {
		case s.isIdx:
			p = p.Index(s.index)
		case s.isKey:
			p = p.Key(s.name)
		case p == nil:
			p = field.NewPath(s.name)
		default:
			p = p.Child(s.name)
		}
	}
	return p
}

// child validates a child node one step below the current one.
func (w *walker) child(n *node, s step, obj, old any, rs rstate) bool {
	w.steps = append(w.steps, s)
	ok := w.visit(n, obj, old, rs)
	w.steps = w.steps[:len(w.steps)-1]
	return ok
}

// node validates the object obj against the root n, old being the old
// object on update (nil on create), which turns ratcheting on; false when
// the walk stopped.
func (w *walker) node(n *node, obj, old any) bool {
	var rs rstate
	if old != nil {
		w.ratchet = true
		rs = rstate{cur: crdschema.Correlated{Old: old, Matched: true}}
	}
	return w.visit(n, obj, old, rs)
}

// visit validates obj against n and below; false stops the walk. old is
// obj's old value for transition rules, rs its ratcheting state.
func (w *walker) visit(n *node, obj, old any, rs rstate) bool {
	if obj == nil {
		// null values are not validated, like in kube: a rule on the
		// surrounding object can check for them
		return true
	}
	if n.t != nil {
		rs.t = n.t
	}
	if len(n.rules) > 0 && !w.rules(n, obj, old, rs) {
		return false
	}
	switch o := obj.(type) {
	case map[string]any:
		oldMap, _ := old.(map[string]any)
		for i := range n.props {
			p := &n.props[i]
			v, ok := o[p.name]
			if !ok {
				continue
			}
			var ov any
			if p.n.needsOld && oldMap != nil {
				ov = oldMap[p.name]
			}
			var crs rstate
			if w.ratchet {
				crs = w.fieldState(rs, p.n, p.name, true)
			}
			if !w.child(p.n, step{name: p.name}, v, ov, crs) {
				return false
			}
		}
		if n.values != nil {
			keys := slices.Sorted(maps.Keys(o)) // errors come out in a stable order
			for _, k := range keys {
				var ov any
				if n.values.needsOld && oldMap != nil {
					ov = oldMap[k]
				}
				var crs rstate
				if w.ratchet {
					crs = w.fieldState(rs, n.values, k, false)
				}
				if !w.child(n.values, step{name: k, isKey: true}, o[k], ov, crs) {
					return false
				}
			}
		}
	case []any:
		if n.items == nil {
			return true
		}
		var corr *crdschema.MapListMatcher
		var oldList []any
		if n.items.needsOld && len(n.mapKeys) > 0 {
			if oldList, _ = old.([]any); len(oldList) > 0 {
				m := crdschema.NewMapListMatcher(n.mapKeys, oldList)
				corr = &m
			}
		}
		var rl ratchetList
		if w.ratchet {
			rl = newRatchetList(n, o, rs, corr, oldList)
		}
		for i, item := range o {
			var ov any
			if corr != nil {
				ov = corr.Match(item)
			}
			var crs rstate
			if w.ratchet {
				crs = rl.item(item, ov)
			}
			if !w.child(n.items, step{index: i, isIdx: true}, item, ov, crs) {
				return false
			}
		}
	}
	return true
}

// rules evaluates the rules of n on obj; false stops the walk.
func (w *walker) rules(n *node, obj, old any, rs rstate) bool {
	if err := w.ctx.Err(); err != nil {
		w.errs = append(w.errs, field.InternalError(w.path(), fmt.Errorf("validation rules were not evaluated: %w", err)))
		return false
	}
	if w.budget <= 0 {
		w.errs = append(w.errs, field.Invalid(w.path(), n.schemaType, "validation failed due to running out of cost budget, no further validation rules will be run"))
		w.budget = -1
		return false
	}
	var self, oldSelf ref.Val
	same := int8(0) // whether obj is unchanged, once known: 1 yes, -1 no
	if n.t != nil {
		self = n.t.toVal(obj)
		if n.usesOld && old != nil {
			oldSelf = n.t.toVal(old)
		}
	}
	for i := range n.rules {
		r := &n.rules[i]
		if r.compileErr != "" {
			w.errs = append(w.errs, field.Invalid(w.path(), n.schemaType, "rule compile error: "+r.compileErr))
			continue
		}
		if r.prog == nil {
			continue // an empty rule
		}
		if r.usesOld && old == nil && !r.optionalOld {
			continue // a transition rule, and nothing to transition from
		}
		w.act = activation{self: self}
		switch {
		case r.optionalOld && oldSelf != nil:
			w.act.oldSelf, w.act.hasOld = types.OptionalOf(oldSelf), true
		case r.optionalOld:
			w.act.oldSelf, w.act.hasOld = types.OptionalNone, true
		case oldSelf != nil:
			w.act.oldSelf, w.act.hasOld = oldSelf, true
		}
		result, details, err := r.prog.ContextEval(w.ctx, &w.act)
		if !w.charge(details) {
			w.errs = append(w.errs, field.Invalid(w.path(), n.schemaType, "validation failed due to running out of cost budget, no further validation rules will be run"))
			return false
		}
		if err != nil {
			msg := err.Error()
			switch {
			case w.ctx.Err() != nil:
				w.errs = append(w.errs, field.InternalError(w.path(), fmt.Errorf("validation rules were not evaluated: %w", w.ctx.Err())))
				return false
			case strings.HasPrefix(msg, "operation cancelled: actual cost limit exceeded"):
				w.errs = append(w.errs, field.Invalid(w.path(), n.schemaType, fmt.Sprintf("'%v': no further validation rules will be run due to call cost exceeds limit for rule: %v", msg, r.errString)))
				w.budget = -1
				return false
			case strings.HasPrefix(msg, "no such overload"):
				// the type checker catches these, except on int-or-string (dyn)
				w.errs = append(w.errs, field.Invalid(w.path(), n.schemaType, fmt.Sprintf("'%v': call arguments did not match a supported operator, function or macro signature for rule: %v", msg, r.errString)))
			default:
				// no such key, index out of bounds, overflow, division by zero...
				w.errs = append(w.errs, field.Invalid(w.path(), n.schemaType, fmt.Sprintf("%v evaluating rule: %v", msg, r.errString)))
			}
			continue
		}
		if result == types.True {
			continue
		}
		// Like kube, ratcheting drops the failure, not the evaluation: the
		// rule's cost counts either way.
		drop := false
		if w.ratchet && !r.usesOld {
			if same == 0 {
				same = -1
				if rs.unchanged(obj) {
					same = 1
				}
			}
			drop = same == 1
		}
		if !w.fail(n, r, drop) {
			return false
		}
	}
	return true
}

// charge takes an evaluation's cost from the budget; false when it did not
// fit (or is unknown, which cannot happen with cost tracking on).
func (w *walker) charge(details *cel.EvalDetails) bool {
	if details == nil || details.ActualCost() == nil {
		w.budget = -1
		return false
	}
	cost := *details.ActualCost()
	if cost > math.MaxInt64 || int64(cost) > w.budget {
		w.budget = -1
		return false
	}
	w.budget -= int64(cost)
	return true
}

// fail reports rule r of node n as failed, unless drop says the failure
// ratchets; false stops the walk (the message expression ran out of
// budget). The message is evaluated even for a failure that ratchets, so
// that it costs what it costs in kube; running out of budget there is
// reported all the same (kube makes it a warning and silently skips the
// remaining rules).
func (w *walker) fail(n *node, r *rule, drop bool) bool {
	detail := r.message
	if r.msgProg != nil {
		msg, ok, stop := w.message(r)
		if stop {
			w.errs = append(w.errs, field.Invalid(w.rulePath(r), n.schemaType, msg))
			return false
		}
		if ok {
			detail = msg
		}
	}
	warn := warningsFrom(w.ctx)
	if drop && warn == nil {
		return true
	}
	p := w.rulePath(r)
	// kube reports the schema's type as the bad value ("string",
	// "object"), never the value itself.
	value := n.schemaType
	var e *field.Error
	switch r.reason {
	case apiextensionsv1.FieldValueForbidden:
		e = field.Forbidden(p, detail)
	case apiextensionsv1.FieldValueRequired:
		e = field.Required(p, detail)
	case apiextensionsv1.FieldValueDuplicate:
		e = field.Duplicate(p, value)
	default:
		e = field.Invalid(p, value, detail)
	}
	if drop {
		warn(e.Error())
		return true
	}
	w.errs = append(w.errs, e)
	return true
}

// rulePath is where a failure of r is reported: the node, or the rule's
// fieldPath below it.
func (w *walker) rulePath(r *rule) *field.Path {
	p := w.path()
	if r.fieldPath != "" {
		p = p.Child(r.fieldPath)
	}
	return p
}

// message evaluates a rule's messageExpression with the rule's activation.
// Like kube, a message that fails to evaluate or is unusable falls back to
// the static message (ok false), except that running out of budget stops
// validation (stop true, with the error's detail).
func (w *walker) message(r *rule) (msg string, ok, stop bool) {
	result, details, err := r.msgProg.ContextEval(w.ctx, &w.act)
	if !w.charge(details) {
		return "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run", false, true
	}
	if err != nil {
		if strings.HasPrefix(err.Error(), "operation cancelled: actual cost limit exceeded") {
			w.budget = -1
			return fmt.Sprintf("no further validation rules will be run due to call cost exceeds limit for messageExpression: %q", r.msgSrc), false, true
		}
		return "", false, false
	}
	s, isString := result.Value().(string)
	if !isString {
		return "", false, false
	}
	s = strings.TrimSpace(s)
	if s == "" || len(s) > maxMessageExpressionBytes || strings.Contains(s, "\n") {
		return "", false, false
	}
	return s, true, false
}

// activation resolves self and oldSelf.
type activation struct {
	self, oldSelf ref.Val
	hasOld        bool
}

func (a *activation) ResolveName(name string) (any, bool) {
	switch name {
	case "self":
		return a.self, a.self != nil
	case "oldSelf":
		return a.oldSelf, a.hasOld
	}
	return nil, false
}

func (a *activation) Parent() interpreter.Activation { return nil }
