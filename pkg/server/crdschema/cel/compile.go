package cel

import (
	"github.com/setpoint-dev/setpoint/pkg/server/crdschema"

	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Validator holds the compiled rules of one CRD version's schema, arranged
// like the parts of the schema that carry rules. It is immutable and safe
// for concurrent use.
type Validator struct {
	root *node
}

// node is a schema node with rules, or with rules below it.
type node struct {
	t          *declType // type of self; nil only when building it failed
	schemaType string    // the schema's type, the "value" of kube's errors
	rules      []rule
	props      []propNode // sorted by name
	items      *node
	values     *node    // additionalProperties
	mapKeys    []string // x-kubernetes-list-map-keys: items correlate with old items by these
	usesOld    bool     // a rule here uses oldSelf
	needsOld   bool     // a rule here or below uses oldSelf
}

type propNode struct {
	name string
	n    *node
}

// rule is one compiled x-kubernetes-validations entry with what its errors
// need precomputed, so failures cost no formatting beyond the error itself.
type rule struct {
	prog        cel.Program
	msgProg     cel.Program
	usesOld     bool
	optionalOld bool
	// compileErr is set when the rule did not compile; Compile reported it,
	// and a Validator used anyway (say for a CRD stored before a limit
	// changed) reports it on every write as kube does.
	compileErr string
	reason     apiextensionsv1.FieldValueErrorReason // "" is FieldValueInvalid
	fieldPath  string                                // normalised, relative to the node
	errString  string                                // the message, or the rule
	message    string                                // the message, or "failed rule: <rule>"
	msgSrc     string                                // messageExpression source
}

// Compile compiles every x-kubernetes-validations rule in the schema tree
// (props is spec.versions[i].schema.openAPIV3Schema). Errors are field
// errors under fldPath pointing at the rule, e.g.
// <fldPath>.properties[spec].x-kubernetes-validations[0].rule: Invalid value:
// ...: compilation failed: ..., and also when a rule's estimated cost exceeds
// StaticEstimatedCostLimit or the schema's total estimated cost exceeds
// StaticEstimatedCRDCostLimit. The server answers them as 422 when the CRD is
// written. Returns a nil *Validator (valid, no-op) when the schema has no
// rules.
//
// With errors, the returned Validator still evaluates the rules that did
// compile and reports the others on every write, as kube does for a stored
// CRD whose rules no longer compile; a CRD write must be refused instead.
//
// Compile compiles props as a structural schema first; New compiles the
// rules of a schema that is compiled already.
func Compile(props *apiextensionsv1.JSONSchemaProps, fldPath *field.Path) (*Validator, field.ErrorList) {
	return New(crdschema.Unchecked(props), fldPath)
}

// New compiles the rules of a compiled structural schema, as Compile does.
// CEL's types and value conversion read the same compiled nodes that
// prune, default and validate objects.
func New(s *crdschema.Structural, fldPath *field.Path) (*Validator, field.ErrorList) {
	if s == nil || !hasRules(s.Root()) {
		return nil, nil // most CRDs: no need to walk the schema any further
	}
	env, err := base()
	if err != nil {
		return nil, field.ErrorList{field.InternalError(fldPath, fmt.Errorf("CEL environment: %w", err))}
	}
	c := &compiler{base: env}
	c.provider = &typeProvider{Provider: env.CELTypeProvider(), objects: map[string]*declType{}}
	c.types.objects = c.provider.objects
	root := c.node(s.Root(), fldPath, nil, true, "selfType", cardinality{n: 1, bounded: true}, nil)
	if c.total > StaticEstimatedCRDCostLimit {
		for _, e := range c.expensive {
			c.errs = append(c.errs, field.Forbidden(e.path, "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"))
		}
		c.errs = append(c.errs, field.Forbidden(fldPath, costExceededMessage(
			"x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema", c.total, StaticEstimatedCRDCostLimit)))
	}
	if root == nil {
		return nil, c.errs
	}
	return &Validator{root: root}, c.errs
}

// compiler is the state of one Compile call.
type compiler struct {
	base     *cel.Env
	crdEnv   *cel.Env // base plus this schema's object types
	provider *typeProvider
	types    typeBuilder
	errs     field.ErrorList

	total     uint64     // estimated cost of all rules
	expensive []ruleCost // the (at most 4) costliest rules, for errors
}

type ruleCost struct {
	path *field.Path
	cost uint64
}

// cardinality is how many times a node can occur in one object: the product
// of maxItems/maxProperties of the lists and maps above it, unless one of
// them is unbounded.
type cardinality struct {
	n       uint64
	bounded bool
}

func (c cardinality) under(s *crdschema.Node) cardinality {
	if !c.bounded {
		return c
	}
	var max int64
	var ok bool
	switch {
	case s.Type() == "array":
		max, ok = s.MaxItems()
	case s.Type() == "object" && s.HasAdditionalProperties():
		max, ok = s.MaxProperties()
	default:
		return c
	}
	if !ok {
		return cardinality{}
	}
	return cardinality{n: saturatingMul(c.n, uint64(zeroIfNegative(max))), bounded: true}
}

// node compiles the rules of schema s at path and below. t is the CEL type
// of s when an ancestor with rules has built it already; uncorrelatable is
// the first list or map above s whose old elements cannot be matched with
// the new ones, where oldSelf is meaningless. It returns nil when there are
// no rules at or below s.
func (c *compiler) node(s *crdschema.Node, path *field.Path, t *declType, resourceRoot bool,
	typeName string, card cardinality, uncorrelatable *field.Path) *node {
	n := &node{schemaType: s.Type()}
	if len(s.Rules()) > 0 {
		if t == nil {
			t = c.types.build(s, resourceRoot, typeName)
		}
		n.t = t
		c.compileRules(n, s, path, card, uncorrelatable)
	}

	childCard := card.under(s)
	childUncorrelatable := uncorrelatable
	if mt := s.MapType(); uncorrelatable == nil && mt != nil && *mt != "granular" && *mt != "atomic" {
		childUncorrelatable = path
	}
	for i := range s.NumProperties() {
		name, ps := s.Property(i)
		var ft *declType
		celName, ok := escapeName(name)
		if f := t.fieldByJSON(name); f != nil {
			ft = f.t
		}
		if !ok {
			celName = name
		}
		if child := c.node(ps, path.Child("properties").Key(name), ft, ps.EmbeddedResource(),
			typeName+"."+celName, childCard, childUncorrelatable); child != nil {
			n.props = append(n.props, propNode{name: name, n: child})
			n.needsOld = n.needsOld || child.needsOld
		}
	}
	if items := s.Items(); items != nil {
		var it *declType
		if t != nil && t.kind == kindList {
			it = t.elem
		}
		itemsUncorrelatable := uncorrelatable
		if itemsUncorrelatable == nil && s.ListType() != "map" {
			// only map lists match old and new items, by their keys
			itemsUncorrelatable = path
		}
		if child := c.node(items, path.Child("items"), it, items.EmbeddedResource(),
			typeName+".@idx", childCard, itemsUncorrelatable); child != nil {
			n.items = child
			n.needsOld = n.needsOld || child.needsOld
			if s.ListType() == "map" {
				n.mapKeys = s.MapKeys()
			}
		}
	}
	if vs := s.AdditionalProperties(); vs != nil {
		var vt *declType
		if t != nil && t.kind == kindMap {
			vt = t.elem
		}
		if child := c.node(vs, path.Child("additionalProperties"), vt, vs.EmbeddedResource(),
			typeName+".@elem", childCard, childUncorrelatable); child != nil {
			n.values = child
			n.needsOld = n.needsOld || child.needsOld
		}
	}
	if len(n.rules) == 0 && n.props == nil && n.items == nil && n.values == nil {
		return nil
	}
	return n
}

func hasRules(s *crdschema.Node) bool {
	if s == nil {
		return false
	}
	if len(s.Rules()) > 0 {
		return true
	}
	for i := range s.NumProperties() {
		if _, p := s.Property(i); hasRules(p) {
			return true
		}
	}
	return hasRules(s.Items()) || hasRules(s.AdditionalProperties())
}

var supportedReasons = []string{
	string(apiextensionsv1.FieldValueDuplicate),
	string(apiextensionsv1.FieldValueForbidden),
	string(apiextensionsv1.FieldValueInvalid),
	string(apiextensionsv1.FieldValueRequired),
}

// compileRules compiles the rules of node n (schema s at path).
func (c *compiler) compileRules(n *node, s *crdschema.Node, path *field.Path, card cardinality, uncorrelatable *field.Path) {
	rulesPath := path.Child("x-kubernetes-validations")
	rules := s.Rules()
	n.rules = make([]rule, len(rules))
	// First what kube checks about the declarations; with any of these
	// wrong, the rules of this node are not compiled.
	declErrs := len(c.errs)
	for i, r := range rules {
		c.checkDeclaration(r, s, rulesPath.Index(i))
	}
	if len(c.errs) > declErrs {
		for i, r := range rules {
			if strings.TrimSpace(r.Rule) != "" {
				n.rules[i].compileErr = "the rule's declaration is invalid"
				n.rules[i].errString = ruleErrorString(r)
			}
		}
		return
	}
	if n.t == nil {
		c.errs = append(c.errs, field.InternalError(rulesPath, fmt.Errorf(
			"internal error: failed to construct type information for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations")))
		for i, r := range rules {
			n.rules[i].compileErr = "no CEL type for the schema"
			n.rules[i].errString = ruleErrorString(r)
		}
		return
	}

	est := &estimator{self: n.t}
	// how often the rule can run for one object; when a list or map above is
	// unbounded, as often as the smallest value fits into a request
	times := card.n
	if !card.bounded {
		times = uint64(MaxRequestSizeBytes / (n.t.minSize + 1))
	}
	var envs [2]*cel.Env // without and with optionalOldSelf
	for i, r := range rules {
		rp := rulesPath.Index(i)
		cr := &n.rules[i]
		cr.errString = ruleErrorString(r)
		cr.message = "failed rule: " + cr.errString
		if m := strings.TrimSpace(r.Message); m != "" {
			cr.message = m
		}
		if r.Reason != nil {
			cr.reason = *r.Reason
		}
		cr.optionalOld = r.OptionalOldSelf != nil && *r.OptionalOldSelf
		if strings.TrimSpace(r.Rule) == "" {
			continue
		}
		opt := 0
		if cr.optionalOld {
			opt = 1
		}
		if envs[opt] == nil {
			env, err := c.nodeEnv(n.t, cr.optionalOld)
			if err != nil {
				c.errs = append(c.errs, field.InternalError(rp.Child("rule"), err))
				cr.compileErr = err.Error()
				continue
			}
			envs[opt] = env
		}
		env := envs[opt]

		prog, maxCost, usesOld, detail := c.compileExpr(env, est, r.Rule, types.BoolType, "")
		if detail != "" {
			c.errs = append(c.errs, field.Invalid(rp.Child("rule"), r, detail))
			cr.compileErr = detail
		} else {
			cr.prog, cr.usesOld = prog, usesOld
			cost := saturatingMul(maxCost, times)
			if cost > StaticEstimatedCostLimit {
				c.errs = append(c.errs, field.Forbidden(rp.Child("rule"), costExceededMessage("estimated rule cost", cost, StaticEstimatedCostLimit)))
			}
			c.observe(rp.Child("rule"), cost)
			if r.MessageExpression != "" {
				msgProg, msgCost, _, msgDetail := c.compileExpr(env, est, r.MessageExpression, types.StringType, "messageExpression ")
				if msgDetail != "" {
					c.errs = append(c.errs, field.Invalid(rp.Child("messageExpression"), r, msgDetail))
				} else {
					cr.msgProg, cr.msgSrc = msgProg, r.MessageExpression
					// kube counts a message once: it is only built for a failure
					if msgCost > StaticEstimatedCostLimit {
						c.errs = append(c.errs, field.Forbidden(rp.Child("messageExpression"), costExceededMessage("estimated messageExpression cost", msgCost, StaticEstimatedCostLimit)))
					}
					c.observe(rp.Child("messageExpression"), msgCost)
				}
			}
		}
		if cr.usesOld {
			n.usesOld, n.needsOld = true, true
			if uncorrelatable != nil {
				c.errs = append(c.errs, field.Invalid(rp.Child("rule"), r.Rule, fmt.Sprintf(
					"oldSelf cannot be used on the uncorrelatable portion of the schema within %v", uncorrelatable)))
			}
		} else if r.OptionalOldSelf != nil {
			c.errs = append(c.errs, field.Invalid(rp.Child("optionalOldSelf"), *r.OptionalOldSelf, "may not be set if oldSelf is not used in rule"))
		}
		if r.FieldPath != "" {
			if p, err := parseFieldPath(r.FieldPath, s); err == nil && p != nil {
				cr.fieldPath = p.String()
			}
		}
	}
}

// checkDeclaration reports what kube refuses in a rule's declaration, before
// and apart from compiling it.
func (c *compiler) checkDeclaration(r apiextensionsv1.ValidationRule, s *crdschema.Node, rp *field.Path) {
	trimmedRule := strings.TrimSpace(r.Rule)
	trimmedMsg := strings.TrimSpace(r.Message)
	switch {
	case trimmedRule == "":
		c.errs = append(c.errs, field.Required(rp.Child("rule"), "rule is not specified"))
	case r.Message != "" && trimmedMsg == "":
		c.errs = append(c.errs, field.Invalid(rp.Child("message"), r.Message, "must be non-empty if specified"))
	case hasLineBreaks(trimmedMsg):
		c.errs = append(c.errs, field.Invalid(rp.Child("message"), r.Message, "must not contain line breaks"))
	case hasLineBreaks(trimmedRule) && trimmedMsg == "":
		c.errs = append(c.errs, field.Required(rp.Child("message"), "message must be specified if rule contains line breaks"))
	}
	if r.MessageExpression != "" && strings.TrimSpace(r.MessageExpression) == "" {
		c.errs = append(c.errs, field.Required(rp.Child("messageExpression"), "messageExpression must be non-empty if specified"))
	}
	if r.Reason != nil {
		supported := false
		for _, s := range supportedReasons {
			supported = supported || s == string(*r.Reason)
		}
		if !supported {
			c.errs = append(c.errs, field.NotSupported(rp.Child("reason"), *r.Reason, supportedReasons))
		}
	}
	if r.FieldPath != "" {
		if strings.TrimSpace(r.FieldPath) == "" {
			c.errs = append(c.errs, field.Invalid(rp.Child("fieldPath"), r.FieldPath, "must be non-empty if specified"))
		}
		if hasLineBreaks(r.FieldPath) {
			c.errs = append(c.errs, field.Invalid(rp.Child("fieldPath"), r.FieldPath, "must not contain line breaks"))
		}
		if _, err := parseFieldPath(r.FieldPath, s); err != nil {
			c.errs = append(c.errs, field.Invalid(rp.Child("fieldPath"), r.FieldPath, "must be a valid path"))
		}
	}
}

func hasLineBreaks(s string) bool { return strings.ContainsAny(s, "\n\r") }

// ruleErrorString names a rule in runtime errors: its message if it has one.
func ruleErrorString(r apiextensionsv1.ValidationRule) string {
	if m := strings.TrimSpace(r.Message); m != "" {
		return m
	}
	return strings.TrimSpace(r.Rule)
}

// nodeEnv is the environment to type-check the rules of a node with self of
// type t; oldSelf has the same type, or is optional for optionalOldSelf.
func (c *compiler) nodeEnv(t *declType, optionalOld bool) (*cel.Env, error) {
	if c.crdEnv == nil {
		env, err := c.base.Extend(cel.CustomTypeProvider(c.provider))
		if err != nil {
			return nil, fmt.Errorf("CEL environment: %w", err)
		}
		c.crdEnv = env
	}
	old := t.cel
	if optionalOld {
		old = types.NewOptionalType(t.cel)
	}
	env, err := c.crdEnv.Extend(cel.Variable("self", t.cel), cel.Variable("oldSelf", old))
	if err != nil {
		return nil, fmt.Errorf("CEL environment: %w", err)
	}
	return env, nil
}

// compileExpr type-checks src, which must produce want, and plans it. It
// returns the program, its worst-case cost, whether it reads oldSelf, or a
// failure's detail in kube's words (prefixed with what for messages).
func (c *compiler) compileExpr(env *cel.Env, est *estimator, src string, want *types.Type, what string) (cel.Program, uint64, bool, string) {
	checked, iss := env.Compile(src)
	if iss.Err() != nil {
		return nil, 0, false, what + "compilation failed: " + iss.String()
	}
	if !checked.OutputType().IsExactType(want) {
		if what == "" {
			return nil, 0, false, "cel expression must evaluate to a bool"
		}
		return nil, 0, false, "messageExpression must evaluate to a string"
	}
	usesOld := false
	for _, ref := range checked.NativeRep().ReferenceMap() {
		if ref.Name == "oldSelf" {
			usesOld = true
			break
		}
	}
	prog, err := c.base.Program(checked, programOptions...)
	if err != nil {
		if what == "" {
			return nil, 0, false, "program instantiation failed: " + err.Error()
		}
		return nil, 0, false, "messageExpression instantiation failed: " + err.Error()
	}
	cost, err := env.EstimateCost(checked, est)
	if err != nil {
		if what == "" {
			return nil, 0, false, "cost estimation failed: " + err.Error()
		}
		return nil, 0, false, "cost estimation failed for messageExpression: " + err.Error()
	}
	return prog, cost.Max, usesOld, ""
}

// observe adds a rule's estimated cost to the schema's total and remembers
// the costliest rules (those above 1% of the limit) to blame if the total is
// too high.
func (c *compiler) observe(path *field.Path, cost uint64) {
	if math.MaxUint64-c.total < cost {
		c.total = math.MaxUint64
	} else {
		c.total += cost
	}
	if cost < StaticEstimatedCRDCostLimit/100 {
		return
	}
	c.expensive = append(c.expensive, ruleCost{path: path, cost: cost})
	sort.SliceStable(c.expensive, func(i, j int) bool { return c.expensive[i].cost > c.expensive[j].cost })
	if len(c.expensive) > 4 {
		c.expensive = c.expensive[:4]
	}
}
