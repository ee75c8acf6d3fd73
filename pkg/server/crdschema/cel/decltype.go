package cel

import (
	"sort"

	"github.com/google/cel-go/common/types"

	"github.com/setpoint-dev/setpoint/pkg/server/crdschema"
)

// A declType is the CEL view of one schema node. Rules are type-checked
// against it, so a typo in a field name or a comparison of a string with an
// int fails when the CRD is written rather than on every object write; its
// size bounds (maxLength, maxItems, maxProperties) feed the cost estimate;
// and at runtime it converts JSON values to CEL values lazily.
type declType struct {
	kind     kind
	list     listType
	nullable bool
	cel      *types.Type
	elem     *declType   // list items, map values
	fields   []declField // objects, sorted by CEL name
	mapKeys  []string    // JSON names of x-kubernetes-list-map-keys

	// maxElems is the worst-case size() of a value: bytes for strings (4 per
	// character of maxLength), items, entries. Objects have 0, as in kube.
	maxElems int64
	// minSize is the smallest JSON serialisation of a value in bytes.
	minSize int64
}

type kind uint8

const (
	kindIntOrString kind = iota // x-kubernetes-int-or-string: dyn in CEL
	kindBool
	kindInt
	kindDouble
	kindString
	kindBytes    // format: byte
	kindDuration // format: duration
	kindDate     // format: date
	kindDateTime // format: date-time
	kindList
	kindMap    // additionalProperties
	kindObject // properties
)

type listType uint8

const (
	listAtomic listType = iota
	listSet
	listMap
)

type declField struct {
	name string // CEL name, escaped
	json string // property name
	t    *declType
}

// field returns the field a rule selects by name, or nil. Reserved words are
// found under their bare name too, as kube does since 1.31.
func (t *declType) field(name string) *declField {
	if t == nil || t.kind != kindObject {
		return nil
	}
	if f := t.fieldExact(name); f != nil {
		return f
	}
	if celReserved[name] {
		return t.fieldExact("__" + name + "__")
	}
	return nil
}

func (t *declType) fieldExact(name string) *declField {
	fs := t.fields
	i := sort.Search(len(fs), func(i int) bool { return fs[i].name >= name })
	if i < len(fs) && fs[i].name == name {
		return &fs[i]
	}
	return nil
}

// fieldByJSON returns the field declared for a property name, or nil.
func (t *declType) fieldByJSON(prop string) *declField {
	if t == nil || t.kind != kindObject {
		return nil
	}
	name, ok := escapeName(prop)
	if !ok {
		return nil
	}
	return t.fieldExact(name)
}

// mapKeyType describes map keys; kube gives them no size, so iterating map
// keys is estimated as cheap.
var mapKeyType = &declType{kind: kindString, cel: types.StringType, minSize: minStringSize}

// typeBuilder converts schemas to declTypes and remembers the object types,
// which the type checker needs to resolve field selections.
type typeBuilder struct {
	objects map[string]*declType
}

// build returns the declType of schema node s, or nil when kube does not
// expose such a value to rules (no type, or x-kubernetes-preserve-unknown-fields
// without a type, or a list or map of such values). name names object types
// after their place in the schema; resourceRoot adds the apiVersion, kind and
// metadata.name/generateName that rules may always read at the root of a
// resource and of an embedded resource.
func (b *typeBuilder) build(s *crdschema.Node, resourceRoot bool, name string) *declType {
	if s == nil {
		return nil
	}
	if s.IntOrString() {
		t := &declType{kind: kindIntOrString, cel: types.DynType, nullable: s.Nullable(), minSize: 1}
		t.maxElems = maxStringLength(s)
		return t
	}
	switch s.Type() {
	case "array":
		items := s.Items()
		if items == nil {
			return nil
		}
		item := b.build(items, items.EmbeddedResource(), name+".@idx")
		if item == nil {
			return nil
		}
		t := &declType{kind: kindList, cel: types.NewListType(item.cel), elem: item, nullable: s.Nullable(), minSize: 2}
		if max, ok := s.MaxItems(); ok {
			t.maxElems = zeroIfNegative(max)
		} else {
			t.maxElems = (MaxRequestSizeBytes - 2) / (item.minSize + 1)
		}
		switch s.ListType() {
		case "set":
			t.list = listSet
		case "map":
			t.list = listMap
			t.mapKeys = s.MapKeys()
		}
		return t
	case "object":
		if vs := s.AdditionalProperties(); vs != nil {
			val := b.build(vs, vs.EmbeddedResource(), name+".@elem")
			if val == nil {
				return nil
			}
			t := &declType{kind: kindMap, cel: types.NewMapType(types.StringType, val.cel), elem: val, nullable: s.Nullable(), minSize: 2}
			if max, ok := s.MaxProperties(); ok {
				t.maxElems = zeroIfNegative(max)
			} else {
				// a key of at least "", a colon, a comma and the value
				t.maxElems = (MaxRequestSizeBytes - 2) / (val.minSize + 6)
			}
			return t
		}
		return b.object(s, name, resourceRoot && !hasTypeAndObjectMeta(s))
	case "string":
		return stringType(s)
	case "boolean":
		return &declType{kind: kindBool, cel: types.BoolType, nullable: s.Nullable(), minSize: minBoolSize}
	case "number":
		return &declType{kind: kindDouble, cel: types.DoubleType, nullable: s.Nullable(), minSize: minNumberSize}
	case "integer":
		return &declType{kind: kindInt, cel: types.IntType, nullable: s.Nullable(), minSize: minNumberSize}
	}
	return nil
}

// objectField is a property as an object type declares it.
type objectField struct {
	name       string
	t          *declType
	hasDefault bool
}

// object builds the type of an object with properties; withMeta replaces
// apiVersion, kind and metadata by what rules may read of a resource.
func (b *typeBuilder) object(s *crdschema.Node, name string, withMeta bool) *declType {
	t := &declType{kind: kindObject, cel: types.NewObjectType(name), nullable: s.Nullable()}
	required := make(map[string]bool, len(s.Required()))
	for _, r := range s.Required() {
		required[r] = true
	}
	var props []objectField
	for i := range s.NumProperties() {
		p, ps := s.Property(i)
		if withMeta && isTypeOrObjectMeta(p) {
			continue
		}
		props = append(props, objectField{name: p, t: b.build(ps, ps.EmbeddedResource(), typeName(name, p)), hasDefault: ps.HasDefault()})
	}
	if withMeta {
		str := func() *declType { return plainString(false) }
		meta := &declType{kind: kindObject, cel: types.NewObjectType(name + ".metadata"), minSize: 2,
			fields: []declField{{name: "generateName", json: "generateName", t: str()}, {name: "name", json: "name", t: str()}}}
		b.register(name+".metadata", meta)
		props = append(props, objectField{name: "apiVersion", t: str()}, objectField{name: "kind", t: str()}, objectField{name: "metadata", t: meta})
		sort.Slice(props, func(i, j int) bool { return props[i].name < props[j].name })
	}
	// an object is at least {} plus, for each required property without a
	// default (defaults are filled in by the server), "name":value and a comma
	minSize := int64(2)
	t.fields = make([]declField, 0, len(props))
	for _, p := range props {
		if p.t == nil {
			continue
		}
		if celName, ok := escapeName(p.name); ok {
			t.fields = append(t.fields, declField{name: celName, json: p.name, t: p.t})
		}
		if required[p.name] && !p.hasDefault {
			minSize += int64(len(p.name)) + p.t.minSize + 4
		}
	}
	sort.Slice(t.fields, func(i, j int) bool { return t.fields[i].name < t.fields[j].name })
	t.minSize = minSize
	b.register(name, t)
	return t
}

// typeName names the type of property p of object type name.
func typeName(name, p string) string {
	if celName, ok := escapeName(p); ok {
		return name + "." + celName
	}
	return name + "." + p
}

func (b *typeBuilder) register(name string, t *declType) {
	if b.objects == nil {
		b.objects = make(map[string]*declType)
	}
	b.objects[name] = t
}

func isTypeOrObjectMeta(p string) bool { return p == "apiVersion" || p == "kind" || p == "metadata" }

func plainString(nullable bool) *declType {
	return &declType{kind: kindString, cel: types.StringType, nullable: nullable, minSize: minStringSize, maxElems: MaxRequestSizeBytes - 2}
}

func stringType(s *crdschema.Node) *declType {
	switch s.Format() {
	case "byte":
		t := &declType{kind: kindBytes, cel: types.BytesType, nullable: s.Nullable(), minSize: minStringSize}
		if max, ok := s.MaxLength(); ok {
			t.maxElems = zeroIfNegative(max)
		} else {
			t.maxElems = MaxRequestSizeBytes - 2
		}
		return t
	case "duration":
		return &declType{kind: kindDuration, cel: types.DurationType, nullable: s.Nullable(), minSize: minDurationSize, maxElems: maxDurationSize}
	case "date":
		return &declType{kind: kindDate, cel: types.TimestampType, nullable: s.Nullable(), minSize: minDateSize, maxElems: minDateSize}
	case "date-time":
		return &declType{kind: kindDateTime, cel: types.TimestampType, nullable: s.Nullable(), minSize: minDateTimeSize, maxElems: maxDateTimeSize}
	}
	t := &declType{kind: kindString, cel: types.StringType, nullable: s.Nullable(), minSize: minStringSize}
	_, hasMax := s.MaxLength()
	switch {
	case hasMax:
		t.maxElems = maxStringLength(s)
	case len(s.Enum()) > 0:
		// no value can be longer than the longest enum value
		for _, e := range s.Enum() {
			if v, ok := e.(string); ok && int64(len(v)) > t.maxElems {
				t.maxElems = int64(len(v))
			}
		}
	default:
		t.maxElems = MaxRequestSizeBytes - 2
	}
	return t
}

// maxStringLength is the worst-case size of a string: maxLength counts
// characters, which take up to 4 bytes each.
func maxStringLength(s *crdschema.Node) int64 {
	if max, ok := s.MaxLength(); ok {
		return zeroIfNegative(max) * 4
	}
	return MaxRequestSizeBytes - 2
}

func zeroIfNegative(v int64) int64 {
	if v < 0 {
		return 0
	}
	return v
}

// hasTypeAndObjectMeta reports whether a resource's schema declares
// apiVersion and kind as strings and metadata with name and generateName.
// Like kube, metadata is otherwise replaced by just those two, so rules can
// read metadata.name but not, say, labels.
func hasTypeAndObjectMeta(s *crdschema.Node) bool {
	meta := s.PropertyNamed("metadata")
	return s.PropertyNamed("kind").Type() == "string" &&
		s.PropertyNamed("apiVersion").Type() == "string" &&
		meta.Type() == "object" &&
		meta.PropertyNamed("name").Type() == "string" &&
		meta.PropertyNamed("generateName").Type() == "string"
}
