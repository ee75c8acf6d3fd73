package crdschema

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// Node is a compiled structural schema node as package cel reads it to
// compile x-kubernetes-validations: CEL's declared types and value
// conversion come from the same compiled tree that prunes, defaults and
// validates, as kube builds them from its structural schema. The methods
// accept the nil node (no schema).
type Node = node

// Root returns the compiled root node.
func (s *Structural) Root() *Node { return s.root }

// Unchecked compiles props without refusing what kube's CRD rules forbid:
// for compiling a schema's rules on their own, where the schema's
// structural errors are someone else's to report. It returns nil only for
// nil props.
func Unchecked(props *apiextensionsv1.JSONSchemaProps) *Structural {
	if props == nil {
		return nil
	}
	c := &compiler{}
	root := c.structural(props, nil, rootLevel, scope{})
	root.flags |= fKeepMeta
	return &Structural{props: props, root: root, hasDefaults: root.has(fSubtreeDefaults)}
}

// Type is the schema's type as written: "" for none, and for
// x-kubernetes-int-or-string whatever type it was given besides.
func (n *node) Type() string {
	if n == nil {
		return ""
	}
	if n.typ == typeIntOrString {
		if n.v != nil && n.v.ext != nil {
			return n.v.ext.declaredType
		}
		return ""
	}
	return typeNames[n.typ]
}

// IntOrString reports x-kubernetes-int-or-string.
func (n *node) IntOrString() bool { return n != nil && n.typ == typeIntOrString }

// Nullable reports nullable: true.
func (n *node) Nullable() bool { return n != nil && n.has(fNullable) }

// EmbeddedResource reports x-kubernetes-embedded-resource.
func (n *node) EmbeddedResource() bool { return n != nil && n.has(fEmbedded) }

// HasDefault reports whether the schema sets a default, null included.
func (n *node) HasDefault() bool { return n != nil && n.has(fHasDefault) }

// NumProperties is the number of properties; Property(i) returns them in
// name order.
func (n *node) NumProperties() int {
	if n == nil {
		return 0
	}
	return len(n.props)
}

// Property returns the name and schema of the i-th property by name.
func (n *node) Property(i int) (string, *Node) { return n.props[i].name, &n.props[i].node }

// PropertyNamed returns the schema of a property, or nil.
func (n *node) PropertyNamed(name string) *Node {
	if n == nil {
		return nil
	}
	return n.child(name)
}

// Items returns the items schema, or nil.
func (n *node) Items() *Node {
	if n == nil {
		return nil
	}
	return n.items
}

// AdditionalProperties returns the additionalProperties schema, or nil
// (also for additionalProperties given as a bool).
func (n *node) AdditionalProperties() *Node {
	if n == nil {
		return nil
	}
	return n.addlNode
}

// HasAdditionalProperties reports whether additionalProperties is given
// in any form.
func (n *node) HasAdditionalProperties() bool { return n != nil && n.addl != addlNone }

// ListType returns x-kubernetes-list-type as it matters: "set", "map" or
// "" for atomic lists.
func (n *node) ListType() string {
	if n == nil {
		return ""
	}
	switch n.listType {
	case listSet:
		return "set"
	case listMap:
		return "map"
	}
	return ""
}

// MapKeys returns x-kubernetes-list-map-keys of a map list.
func (n *node) MapKeys() []string {
	if n == nil {
		return nil
	}
	return n.mapKeys
}

// MapType returns x-kubernetes-map-type, or nil.
func (n *node) MapType() *string {
	if n == nil || n.v == nil || n.v.ext == nil {
		return nil
	}
	return n.v.ext.mapType
}

// Required returns the required properties.
func (n *node) Required() []string {
	if n == nil {
		return nil
	}
	return n.required
}

// Format returns the format as written when kube checks it for the
// schema's type, else "".
func (n *node) Format() string {
	if n == nil || n.v == nil {
		return ""
	}
	return n.v.formatName
}

// Enum returns the enum values, decoded.
func (n *node) Enum() []any {
	if n == nil || n.v == nil {
		return nil
	}
	return n.v.enum
}

// MaxLength, MaxItems and MaxProperties return the bound and whether the
// schema sets it.
func (n *node) MaxLength() (int64, bool)     { return n.limit(limMaxLength) }
func (n *node) MaxItems() (int64, bool)      { return n.limit(limMaxItems) }
func (n *node) MaxProperties() (int64, bool) { return n.limit(limMaxProperties) }

func (n *node) limit(i int) (int64, bool) {
	if n == nil || n.v == nil || !n.v.has(i) {
		return 0, false
	}
	return n.v.lim[i], true
}

// Rules returns the node's x-kubernetes-validations.
func (n *node) Rules() []apiextensionsv1.ValidationRule {
	if n == nil || n.v == nil || n.v.ext == nil {
		return nil
	}
	return n.v.ext.rules
}
