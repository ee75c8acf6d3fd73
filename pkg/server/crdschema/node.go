package crdschema

import (
	"regexp"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// jsonType is the compiled value of a node's type; typeIntOrString stands
// for x-kubernetes-int-or-string, which kube validates as the type list
// [integer, string].
type jsonType uint8

const (
	typeAny jsonType = iota
	typeString
	typeInteger
	typeNumber
	typeBoolean
	typeObject
	typeArray
	typeIntOrString
)

var typeNames = [...]string{
	typeAny:         "",
	typeString:      "string",
	typeInteger:     "integer",
	typeNumber:      "number",
	typeBoolean:     "boolean",
	typeObject:      "object",
	typeArray:       "array",
	typeIntOrString: "integer,string",
}

type nodeFlags uint16

const (
	fNullable nodeFlags = 1 << iota
	fPreserveUnknown
	fEmbedded
	// fKeepMeta marks nodes whose apiVersion, kind and metadata fields are
	// never pruned: the resource root and embedded resources.
	fKeepMeta
	// fSubtreeDefaults lets Default skip every subtree without defaults.
	fSubtreeDefaults
	fExclusiveMinimum
	fExclusiveMaximum
	fUniqueItems
	fEnumHasNull
	// fHasDefault says the schema sets default, even to null, which the
	// CEL cost estimate reads.
	fHasDefault
)

// addlMode records which form of additionalProperties a node has; the bool
// forms matter for pruning and validation even without a schema.
type addlMode uint8

const (
	addlNone addlMode = iota
	addlFalse
	addlTrue
	addlSchema
)

type listType uint8

const (
	listAtomic listType = iota
	listSet
	listMap
)

// numFormat is the numeric format kube still enforces after stripping the
// formats it does not support for the node's type.
type numFormat uint8

const (
	numFormatNone numFormat = iota
	numFormatInt32
	numFormatInt64
	numFormatFloat
	numFormatDouble
)

// node is one compiled schema node. Structural nodes and the value-only
// nodes under allOf/anyOf/oneOf/not share the type so that one validator
// walks both. Rarely used value validations live behind v so that plain
// nodes stay small: a CRD server may hold hundreds of schemas.
type node struct {
	typ      jsonType
	flags    nodeFlags
	addl     addlMode
	listType listType
	numFmt   numFormat

	props    []prop // sorted by name
	items    *node
	addlNode *node // additionalProperties schema, only for addlSchema
	required []string
	mapKeys  []string
	def      any // decoded default; nil when there is none (kube ignores default: null)
	v        *checks
}

type prop struct {
	name string
	node node
}

// Indexes into checks.lim.
const (
	limMinLength = iota
	limMaxLength
	limMinItems
	limMaxItems
	limMinProperties
	limMaxProperties
	numLimits
)

type checks struct {
	limSet     uint8 // bit i set when lim[i] is given
	hasMinimum bool
	hasMaximum bool
	hasMultOf  bool
	lim        [numLimits]int64
	minimum    float64
	maximum    float64
	multipleOf float64

	pattern    *regexp.Regexp
	format     func(string) bool // nil when the format is unknown or not a string format
	formatName string            // as written in the schema, for messages

	enum        []any
	enumStrings []string            // rendered enum values for "supported values"
	enumSet     map[string]struct{} // for large all-string enums

	ext *ruleExt // read only by package cel, through the methods in rules.go

	allOf []*node
	anyOf []*node
	oneOf []*node
	not   *node
}

// ruleExt is what only package cel reads of a node, apart so that it
// costs the validator's checks a pointer.
type ruleExt struct {
	rules        []apiextensionsv1.ValidationRule // x-kubernetes-validations
	mapType      *string                          // x-kubernetes-map-type
	declaredType string                           // type as written, kept for int-or-string nodes
}

func (c *checks) has(i int) bool { return c.limSet&(1<<i) != 0 }

func (c *checks) junctors() bool {
	return len(c.allOf) > 0 || len(c.anyOf) > 0 || len(c.oneOf) > 0 || c.not != nil
}

func (n *node) has(f nodeFlags) bool { return n.flags&f != 0 }

// child returns the schema of the named property, or nil. Linear search
// beats binary search for the few properties most objects have.
func (n *node) child(name string) *node {
	ps := n.props
	if len(ps) <= 8 {
		for i := range ps {
			if ps[i].name == name {
				return &ps[i].node
			}
		}
		return nil
	}
	lo, hi := 0, len(ps)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ps[m].name < name {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(ps) && ps[lo].name == name {
		return &ps[lo].node
	}
	return nil
}

// fieldSchema is the schema that applies to the value of key in an object
// of n: a property, else the additionalProperties schema.
func (n *node) fieldSchema(key string) *node {
	if c := n.child(key); c != nil {
		return c
	}
	return n.addlNode
}

func isMetaField(k string) bool {
	return k == "apiVersion" || k == "kind" || k == "metadata"
}
