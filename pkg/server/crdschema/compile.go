package crdschema

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	sigsjson "sigs.k8s.io/json"
)

// level is where a structural node sits; kube words some errors by it.
type level uint8

const (
	rootLevel level = iota
	itemLevel
	fieldLevel
)

// scope is what kube's CRD validation hands down the schema tree.
type scope struct {
	// insideMeta is set within apiVersion, kind and metadata of the root
	// or of an embedded resource.
	insideMeta bool
	// noDefaults, when set, forbids defaults for the given reason.
	noDefaults string
}

// compiler checks a schema against kube's rules and compiles it in the
// same walk, so that every rule is stated once next to the data it reads.
type compiler struct {
	opts options
	errs field.ErrorList
}

func (c *compiler) add(e *field.Error) { c.errs = append(c.errs, e) }

func parseType(t string) jsonType {
	switch t {
	case "string":
		return typeString
	case "integer":
		return typeInteger
	case "number":
		return typeNumber
	case "boolean":
		return typeBoolean
	case "object":
		return typeObject
	case "array":
		return typeArray
	}
	return typeAny
}

func sortedKeys(m map[string]apiextensionsv1.JSONSchemaProps) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func hasDefault(s *apiextensionsv1.JSONSchemaProps) bool {
	return s.Default != nil && len(s.Default.Raw) > 0
}

// structural compiles a node of the structural part of the schema: the
// part reachable through properties, items and additionalProperties.
func (c *compiler) structural(s *apiextensionsv1.JSONSchemaProps, p *field.Path, lvl level, sc scope) *node {
	c.openAPI(s, p, sc)
	n := &node{}
	c.values(n, s, p, true)

	if s.Type == "array" && (s.Items == nil || s.Items.Schema == nil) {
		c.add(field.Required(p.Child("items"), "must be specified"))
	}
	if s.Items != nil && s.Items.Schema != nil {
		n.items = c.structural(s.Items.Schema, p.Child("items"), itemLevel, sc)
	}

	checkMeta := lvl == rootLevel || s.XEmbeddedResource
	if len(s.Properties) > 0 {
		n.props = make([]prop, 0, len(s.Properties))
		for _, name := range sortedKeys(s.Properties) {
			sub := sc
			if checkMeta && isMetaField(name) {
				sub.insideMeta = true
				if lvl == rootLevel {
					sub.noDefaults = "in top-level " + name
				}
			}
			ps := s.Properties[name]
			pp := p.Child("properties").Key(name)
			cn := c.structural(&ps, pp, fieldLevel, sub)
			n.props = append(n.props, prop{name: name, node: *cn})

			switch {
			case checkMeta && (name == "kind" || name == "apiVersion") && ps.Type != "string":
				c.add(field.Invalid(pp.Child("type"), ps.Type, "must be string"))
			case name == "metadata":
				if checkMeta && ps.Type != "object" {
					c.add(field.Invalid(pp.Child("type"), ps.Type, "must be object"))
				}
				if lvl == rootLevel {
					c.rootMetadata(&ps, pp)
				}
			}
		}
	}

	if ap := s.AdditionalProperties; ap != nil {
		if lvl == rootLevel {
			c.add(field.Forbidden(p.Child("additionalProperties"), "must not be used at the root"))
		}
		if s.XEmbeddedResource {
			c.add(field.Forbidden(p.Child("additionalProperties"), "must not be used if x-kubernetes-embedded-resource is set"))
		}
		switch {
		case ap.Schema != nil:
			sub := sc
			if sc.insideMeta {
				// Pruning cannot tell which default applies to which key.
				sub.noDefaults = "inside additionalProperties applying to object metadata"
			}
			n.addl = addlSchema
			n.addlNode = c.structural(ap.Schema, p.Child("additionalProperties"), fieldLevel, sub)
		case ap.Allows:
			n.addl = addlTrue
		default:
			n.addl = addlFalse
		}
	}

	if s.XIntOrString && s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields {
		c.add(field.Invalid(p.Child("x-kubernetes-preserve-unknown-fields"), true, "must be false if x-kubernetes-int-or-string is true"))
	}
	if s.XIntOrString && s.XEmbeddedResource {
		c.add(field.Invalid(p.Child("x-kubernetes-embedded-resource"), true, "must be false if x-kubernetes-int-or-string is true"))
	}

	// The only types allowed under anyOf/allOf are kube's two spellings of
	// int-or-string.
	skipAnyOf := isIntOrStringAnyOf(s.AnyOf)
	skipFirstAllOfAnyOf := len(s.AllOf) > 0 && isIntOrStringAnyOf(s.AllOf[0].AnyOf)
	c.junctors(n, s, p, lvl, sc, true, skipAnyOf, skipFirstAllOfAnyOf)

	preserve := s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields
	switch {
	case s.XEmbeddedResource && s.Type != "object":
		if s.Type == "" {
			c.add(field.Required(p.Child("type"), "must be object if x-kubernetes-embedded-resource is true"))
		} else {
			c.add(field.Invalid(p.Child("type"), s.Type, "must be object if x-kubernetes-embedded-resource is true"))
		}
	case s.Type == "" && !s.XIntOrString && !preserve:
		switch lvl {
		case rootLevel:
			c.add(field.Required(p.Child("type"), "must not be empty at the root"))
		case itemLevel:
			c.add(field.Required(p.Child("type"), "must not be empty for specified array items"))
		default:
			c.add(field.Required(p.Child("type"), "must not be empty for specified object fields"))
		}
	}
	if lvl == rootLevel && s.Type != "" && s.Type != "object" {
		c.add(field.Invalid(p.Child("type"), s.Type, "must be object at the root"))
	}
	if s.XEmbeddedResource && !preserve && len(s.Properties) == 0 {
		c.add(field.Required(p.Child("properties"), "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields"))
	}

	if s.XEmbeddedResource {
		n.flags |= fKeepMeta
	}
	if s.XListType != nil {
		switch *s.XListType {
		case "set":
			n.listType = listSet
		case "map":
			n.listType = listMap
			n.mapKeys = s.XListMapKeys
		}
	}

	if n.def != nil || (n.items != nil && n.items.has(fSubtreeDefaults)) ||
		(n.addlNode != nil && n.addlNode.has(fSubtreeDefaults)) {
		n.flags |= fSubtreeDefaults
	}
	for i := range n.props {
		if n.props[i].node.has(fSubtreeDefaults) {
			n.flags |= fSubtreeDefaults
		}
	}
	return n
}

// isIntOrStringAnyOf detects anyOf: [{type: integer}, {type: string}]
// with nothing else set, the one place where nested types are allowed.
func isIntOrStringAnyOf(anyOf []apiextensionsv1.JSONSchemaProps) bool {
	return len(anyOf) == 2 &&
		isZeroExcept(&anyOf[0], "integer") && isZeroExcept(&anyOf[1], "string")
}

func isZeroExcept(s *apiextensionsv1.JSONSchemaProps, typ string) bool {
	cp := *s
	if cp.Type != typ {
		return false
	}
	cp.Type = ""
	return isEmptySchema(&cp)
}

// junctors compiles allOf/anyOf/oneOf/not. check is false below an
// int-or-string anyOf, which kube exempts from the structural rules.
func (c *compiler) junctors(n *node, s *apiextensionsv1.JSONSchemaProps, p *field.Path, lvl level, sc scope, check, skipAnyOf, skipFirstAllOfAnyOf bool) {
	if len(s.AllOf) == 0 && len(s.AnyOf) == 0 && len(s.OneOf) == 0 && s.Not == nil {
		return
	}
	ck := n.checks()
	for i := range s.AllOf {
		ck.allOf = append(ck.allOf, c.nested(&s.AllOf[i], p.Child("allOf").Index(i), lvl, sc, check, skipFirstAllOfAnyOf && i == 0))
	}
	for i := range s.AnyOf {
		ck.anyOf = append(ck.anyOf, c.nested(&s.AnyOf[i], p.Child("anyOf").Index(i), lvl, sc, check && !skipAnyOf, false))
	}
	for i := range s.OneOf {
		ck.oneOf = append(ck.oneOf, c.nested(&s.OneOf[i], p.Child("oneOf").Index(i), lvl, sc, check, false))
	}
	if s.Not != nil {
		ck.not = c.nested(s.Not, p.Child("not"), lvl, sc, check, false)
	}
}

// nested compiles a node under allOf/anyOf/oneOf/not: value validations
// only, which must not change the shape the structural part gives.
func (c *compiler) nested(s *apiextensionsv1.JSONSchemaProps, p *field.Path, lvl level, sc scope, check, skipAnyOf bool) *node {
	c.openAPI(s, p, sc)
	n := &node{}
	c.values(n, s, p, false)

	if s.Items != nil && s.Items.Schema != nil {
		n.items = c.nested(s.Items.Schema, p.Child("items"), lvl, sc, check, false)
	}
	if len(s.Properties) > 0 {
		n.props = make([]prop, 0, len(s.Properties))
		for _, name := range sortedKeys(s.Properties) {
			ps := s.Properties[name]
			pp := p.Child("properties").Key(name)
			cn := c.nested(&ps, pp, fieldLevel, sc, check, false)
			n.props = append(n.props, prop{name: name, node: *cn})
			if check && name == "metadata" {
				// Reasoning about metadata here could restrict it in ways
				// the server cannot honour.
				c.add(field.Forbidden(pp, "must not be specified in a nested context"))
			}
		}
	}
	if ap := s.AdditionalProperties; ap != nil {
		switch {
		case ap.Schema != nil:
			n.addl = addlSchema
			n.addlNode = c.nested(ap.Schema, p.Child("additionalProperties"), fieldLevel, sc, false, false)
		case ap.Allows:
			n.addl = addlTrue
		default:
			n.addl = addlFalse
		}
		if check && (ap.Schema != nil || ap.Allows) {
			c.add(field.Forbidden(p.Child("additionalProperties"), "must be undefined to be structural"))
		}
	}
	c.junctors(n, s, p, lvl, sc, check, skipAnyOf, false)

	if !check {
		return n
	}
	if s.Type != "" {
		c.add(field.Forbidden(p.Child("type"), "must be empty to be structural"))
	}
	if hasDefault(s) {
		c.add(field.Forbidden(p.Child("default"), "must be undefined to be structural"))
	}
	if s.Title != "" {
		c.add(field.Forbidden(p.Child("title"), "must be empty to be structural"))
	}
	if s.Description != "" {
		c.add(field.Forbidden(p.Child("description"), "must be empty to be structural"))
	}
	if s.Nullable {
		c.add(field.Forbidden(p.Child("nullable"), "must be false to be structural"))
	}
	if s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields {
		c.add(field.Forbidden(p.Child("x-kubernetes-preserve-unknown-fields"), "must be false to be structural"))
	}
	if s.XEmbeddedResource {
		c.add(field.Forbidden(p.Child("x-kubernetes-embedded-resource"), "must be false to be structural"))
	}
	if s.XIntOrString {
		c.add(field.Forbidden(p.Child("x-kubernetes-int-or-string"), "must be false to be structural"))
	}
	if len(s.XListMapKeys) > 0 {
		c.add(field.Forbidden(p.Child("x-kubernetes-list-map-keys"), "must be empty to be structural"))
	}
	if s.XListType != nil {
		c.add(field.Forbidden(p.Child("x-kubernetes-list-type"), "must be undefined to be structural"))
	}
	if s.XMapType != nil {
		c.add(field.Forbidden(p.Child("x-kubernetes-map-type"), "must be undefined to be structural"))
	}
	if len(s.XValidations) > 0 {
		c.add(field.Forbidden(p.Child("x-kubernetes-validations"), "must be empty to be structural"))
	}
	return n
}

func (n *node) checks() *checks {
	if n.v == nil {
		n.v = &checks{}
	}
	return n.v
}

// values compiles what a node says about its own value: type, flags,
// format, bounds, pattern, enum, required and (for structural nodes) the
// default.
func (c *compiler) values(n *node, s *apiextensionsv1.JSONSchemaProps, p *field.Path, structural bool) {
	n.typ = parseType(s.Type)
	if s.XIntOrString && structural {
		n.typ = typeIntOrString
	}
	if s.Nullable {
		n.flags |= fNullable
	}
	if s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields {
		n.flags |= fPreserveUnknown
	}
	if s.XEmbeddedResource && structural {
		n.flags |= fEmbedded
	}
	if len(s.Required) > 0 {
		n.required = s.Required
	}

	if s.Format != "" {
		switch n.typ {
		case typeAny, typeString, typeIntOrString:
			if f := stringFormat(s.Format); f != nil {
				ck := n.checks()
				ck.format, ck.formatName = f, s.Format
			}
		default:
			if n.numFmt = numberFormat(n.typ, s.Format); n.numFmt != numFormatNone {
				n.checks().formatName = s.Format
			}
		}
	}

	setLim := func(i int, v *int64) {
		if v != nil {
			ck := n.checks()
			ck.limSet |= 1 << i
			ck.lim[i] = *v
		}
	}
	setLim(limMinLength, s.MinLength)
	setLim(limMaxLength, s.MaxLength)
	setLim(limMinItems, s.MinItems)
	setLim(limMaxItems, s.MaxItems)
	setLim(limMinProperties, s.MinProperties)
	setLim(limMaxProperties, s.MaxProperties)
	if s.Minimum != nil {
		ck := n.checks()
		ck.hasMinimum, ck.minimum = true, *s.Minimum
		if s.ExclusiveMinimum {
			n.flags |= fExclusiveMinimum
		}
	}
	if s.Maximum != nil {
		ck := n.checks()
		ck.hasMaximum, ck.maximum = true, *s.Maximum
		if s.ExclusiveMaximum {
			n.flags |= fExclusiveMaximum
		}
	}
	if s.MultipleOf != nil {
		ck := n.checks()
		ck.hasMultOf, ck.multipleOf = true, *s.MultipleOf
	}
	if s.UniqueItems {
		n.flags |= fUniqueItems
	}
	if s.Pattern != "" {
		if re, err := regexp.Compile(s.Pattern); err != nil {
			c.add(field.Invalid(p.Child("pattern"), s.Pattern, fmt.Sprintf("must be a valid regular expression, but isn't: %v", err)))
		} else {
			n.checks().pattern = re
		}
	}
	if len(s.Enum) > 0 {
		c.enum(n, s.Enum, p.Child("enum"))
	}
	if structural && s.Default != nil {
		n.flags |= fHasDefault
	}
	if structural && (len(s.XValidations) > 0 || s.XMapType != nil || s.XIntOrString && s.Type != "") {
		ext := &ruleExt{rules: s.XValidations, mapType: s.XMapType}
		if s.XIntOrString {
			ext.declaredType = s.Type
		}
		n.checks().ext = ext
	}
	if structural && hasDefault(s) {
		var v any
		if err := sigsjson.UnmarshalCaseSensitivePreserveInts(s.Default.Raw, &v); err != nil {
			c.add(field.Invalid(p.Child("default"), string(s.Default.Raw), err.Error()))
		} else {
			n.def = v
		}
	}
}

// largeEnum is the size from which an all-string enum gets a set; below
// it a linear scan is faster and smaller.
const largeEnum = 16

func (c *compiler) enum(n *node, enum []apiextensionsv1.JSON, p *field.Path) {
	ck := n.checks()
	ck.enum = make([]any, 0, len(enum))
	ck.enumStrings = make([]string, 0, len(enum))
	allStrings := true
	for i, e := range enum {
		var v any
		if len(e.Raw) > 0 {
			if err := sigsjson.UnmarshalCaseSensitivePreserveInts(e.Raw, &v); err != nil {
				c.add(field.Invalid(p.Index(i), string(e.Raw), err.Error()))
				continue
			}
		}
		ck.enum = append(ck.enum, v)
		if str, ok := v.(string); ok {
			ck.enumStrings = append(ck.enumStrings, str)
			continue
		}
		allStrings = false
		if v == nil {
			n.flags |= fEnumHasNull
		}
		b, _ := json.Marshal(v)
		ck.enumStrings = append(ck.enumStrings, string(b))
	}
	if allStrings && len(ck.enum) >= largeEnum {
		ck.enumSet = make(map[string]struct{}, len(ck.enum))
		for _, s := range ck.enumStrings {
			ck.enumSet[s] = struct{}{}
		}
	}
}

// rootMetadata enforces that the root's metadata schema restricts at most
// name and generateName: the rest of ObjectMeta belongs to the server.
func (c *compiler) rootMetadata(m *apiextensionsv1.JSONSchemaProps, p *field.Path) {
	cp := *m
	_, name := cp.Properties["name"]
	_, gen := cp.Properties["generateName"]
	if (name && gen && len(cp.Properties) == 2) || ((name || gen) && len(cp.Properties) == 1) {
		cp.Properties = nil
	}
	cp.Type = ""
	cp.Default = nil // reported on its own
	if !isEmptySchema(&cp) {
		c.add(field.Forbidden(p, "must not specify anything other than name and generateName, but metadata is implicitly specified"))
	}
}

// completeness checks that value validations under the root's junctors
// only talk about fields and items that the structural part specifies;
// kube checks this from the root only.
func (c *compiler) completeness(s *apiextensionsv1.JSONSchemaProps, p *field.Path) {
	c.completeJunctors(s, s, p, p)
}

func (c *compiler) completeJunctors(v, s *apiextensionsv1.JSONSchemaProps, sPath, vPath *field.Path) {
	if v.Not != nil {
		c.completeNested(v.Not, s, sPath, vPath.Child("not"))
	}
	for i := range v.AllOf {
		c.completeNested(&v.AllOf[i], s, sPath, vPath.Child("allOf").Index(i))
	}
	for i := range v.AnyOf {
		c.completeNested(&v.AnyOf[i], s, sPath, vPath.Child("anyOf").Index(i))
	}
	for i := range v.OneOf {
		c.completeNested(&v.OneOf[i], s, sPath, vPath.Child("oneOf").Index(i))
	}
}

func (c *compiler) completeNested(v, s *apiextensionsv1.JSONSchemaProps, sPath, vPath *field.Path) {
	if s == nil {
		c.add(field.Required(sPath, fmt.Sprintf("because it is defined in %s", vPath.String())))
		return
	}
	c.completeJunctors(v, s, sPath, vPath)
	if v.Items != nil && v.Items.Schema != nil {
		var si *apiextensionsv1.JSONSchemaProps
		if s.Items != nil {
			si = s.Items.Schema
		}
		c.completeNested(v.Items.Schema, si, sPath.Child("items"), vPath.Child("items"))
	}
	for _, k := range sortedKeys(v.Properties) {
		vf := v.Properties[k]
		sf, ok := s.Properties[k]
		if !ok {
			c.add(field.Required(sPath.Child("properties").Key(k), fmt.Sprintf("because it is defined in %s", vPath.Child("properties").Key(k).String())))
			continue
		}
		c.completeNested(&vf, &sf, sPath.Child("properties").Key(k), vPath.Child("properties").Key(k))
	}
}

// isEmptySchema reports whether s sets nothing at all; empty lists and
// maps count as unset, as they do in kube's structural form.
func isEmptySchema(s *apiextensionsv1.JSONSchemaProps) bool {
	return s.ID == "" && s.Schema == "" && s.Ref == nil && s.Description == "" && s.Type == "" &&
		s.Format == "" && s.Title == "" && s.Default == nil && s.Maximum == nil && !s.ExclusiveMaximum &&
		s.Minimum == nil && !s.ExclusiveMinimum && s.MaxLength == nil && s.MinLength == nil &&
		s.Pattern == "" && s.MaxItems == nil && s.MinItems == nil && !s.UniqueItems && s.MultipleOf == nil &&
		len(s.Enum) == 0 && s.MaxProperties == nil && s.MinProperties == nil && len(s.Required) == 0 &&
		s.Items == nil && len(s.AllOf) == 0 && len(s.OneOf) == 0 && len(s.AnyOf) == 0 && s.Not == nil &&
		len(s.Properties) == 0 && s.AdditionalProperties == nil && len(s.PatternProperties) == 0 &&
		len(s.Dependencies) == 0 && s.AdditionalItems == nil && len(s.Definitions) == 0 &&
		s.ExternalDocs == nil && s.Example == nil && !s.Nullable && s.XPreserveUnknownFields == nil &&
		!s.XEmbeddedResource && !s.XIntOrString && len(s.XListMapKeys) == 0 && s.XListType == nil &&
		s.XMapType == nil && len(s.XValidations) == 0
}
