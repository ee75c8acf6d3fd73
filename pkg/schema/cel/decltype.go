package cel

import (
	"encoding/json"
	"maps"
	"slices"
	"sort"

	"github.com/google/cel-go/common/types"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
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

// build returns the declType of schema s, or nil when kube does not expose
// such a value to rules (no type, or x-kubernetes-preserve-unknown-fields
// without a type, or a list or map of such values). name names object types
// after their place in the schema; resourceRoot adds the apiVersion, kind and
// metadata.name/generateName that rules may always read at the root of a
// resource and of an embedded resource.
func (b *typeBuilder) build(s *apiextensionsv1.JSONSchemaProps, resourceRoot bool, name string) *declType {
	if s == nil {
		return nil
	}
	if s.XIntOrString {
		t := &declType{kind: kindIntOrString, cel: types.DynType, nullable: s.Nullable, minSize: 1}
		t.maxElems = maxStringLength(s)
		return t
	}
	if resourceRoot {
		s = withTypeAndObjectMeta(s)
	}
	switch s.Type {
	case "array":
		if s.Items == nil || s.Items.Schema == nil {
			return nil
		}
		item := b.build(s.Items.Schema, s.Items.Schema.XEmbeddedResource, name+".@idx")
		if item == nil {
			return nil
		}
		t := &declType{kind: kindList, cel: types.NewListType(item.cel), elem: item, nullable: s.Nullable, minSize: 2}
		if s.MaxItems != nil {
			t.maxElems = zeroIfNegative(*s.MaxItems)
		} else {
			t.maxElems = (MaxRequestSizeBytes - 2) / (item.minSize + 1)
		}
		if s.XListType != nil {
			switch *s.XListType {
			case "set":
				t.list = listSet
			case "map":
				t.list = listMap
				t.mapKeys = s.XListMapKeys
			}
		}
		return t
	case "object":
		if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
			vs := s.AdditionalProperties.Schema
			val := b.build(vs, vs.XEmbeddedResource, name+".@elem")
			if val == nil {
				return nil
			}
			t := &declType{kind: kindMap, cel: types.NewMapType(types.StringType, val.cel), elem: val, nullable: s.Nullable, minSize: 2}
			if s.MaxProperties != nil {
				t.maxElems = zeroIfNegative(*s.MaxProperties)
			} else {
				// a key of at least "", a colon, a comma and the value
				t.maxElems = (MaxRequestSizeBytes - 2) / (val.minSize + 6)
			}
			return t
		}
		return b.object(s, name)
	case "string":
		return stringType(s)
	case "boolean":
		return &declType{kind: kindBool, cel: types.BoolType, nullable: s.Nullable, minSize: minBoolSize}
	case "number":
		return &declType{kind: kindDouble, cel: types.DoubleType, nullable: s.Nullable, minSize: minNumberSize}
	case "integer":
		return &declType{kind: kindInt, cel: types.IntType, nullable: s.Nullable, minSize: minNumberSize}
	}
	return nil
}

func (b *typeBuilder) object(s *apiextensionsv1.JSONSchemaProps, name string) *declType {
	t := &declType{kind: kindObject, cel: types.NewObjectType(name), nullable: s.Nullable}
	required := make(map[string]bool, len(s.Required))
	for _, r := range s.Required {
		required[r] = true
	}
	// an object is at least {} plus, for each required property without a
	// default (defaults are filled in by the server), "name":value and a comma
	minSize := int64(2)
	props := slices.Sorted(maps.Keys(s.Properties))
	t.fields = make([]declField, 0, len(props))
	for _, p := range props {
		ps := s.Properties[p]
		celName, ok := escapeName(p)
		typeName := name + "." + p
		if ok {
			typeName = name + "." + celName
		}
		ft := b.build(&ps, ps.XEmbeddedResource, typeName)
		if ft == nil {
			continue
		}
		if ok {
			t.fields = append(t.fields, declField{name: celName, json: p, t: ft})
		}
		if required[p] && ps.Default == nil {
			minSize += int64(len(p)) + ft.minSize + 4
		}
	}
	sort.Slice(t.fields, func(i, j int) bool { return t.fields[i].name < t.fields[j].name })
	t.minSize = minSize
	if b.objects == nil {
		b.objects = make(map[string]*declType)
	}
	b.objects[name] = t
	return t
}

func stringType(s *apiextensionsv1.JSONSchemaProps) *declType {
	switch s.Format {
	case "byte":
		t := &declType{kind: kindBytes, cel: types.BytesType, nullable: s.Nullable, minSize: minStringSize}
		if s.MaxLength != nil {
			t.maxElems = zeroIfNegative(*s.MaxLength)
		} else {
			t.maxElems = MaxRequestSizeBytes - 2
		}
		return t
	case "duration":
		return &declType{kind: kindDuration, cel: types.DurationType, nullable: s.Nullable, minSize: minDurationSize, maxElems: maxDurationSize}
	case "date":
		return &declType{kind: kindDate, cel: types.TimestampType, nullable: s.Nullable, minSize: minDateSize, maxElems: minDateSize}
	case "date-time":
		return &declType{kind: kindDateTime, cel: types.TimestampType, nullable: s.Nullable, minSize: minDateTimeSize, maxElems: maxDateTimeSize}
	}
	t := &declType{kind: kindString, cel: types.StringType, nullable: s.Nullable, minSize: minStringSize}
	switch {
	case s.MaxLength != nil:
		t.maxElems = maxStringLength(s)
	case len(s.Enum) > 0:
		// no value can be longer than the longest enum value
		for _, e := range s.Enum {
			var v string
			if json.Unmarshal(e.Raw, &v) == nil && int64(len(v)) > t.maxElems {
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
func maxStringLength(s *apiextensionsv1.JSONSchemaProps) int64 {
	if s.MaxLength != nil {
		return zeroIfNegative(*s.MaxLength) * 4
	}
	return MaxRequestSizeBytes - 2
}

func zeroIfNegative(v int64) int64 {
	if v < 0 {
		return 0
	}
	return v
}

// withTypeAndObjectMeta makes sure a resource's schema declares apiVersion,
// kind and metadata.name/generateName. Like kube, metadata is replaced by
// just those two unless the schema declares both, so rules can read
// metadata.name but not, say, labels.
func withTypeAndObjectMeta(s *apiextensionsv1.JSONSchemaProps) *apiextensionsv1.JSONSchemaProps {
	if s.Properties != nil &&
		s.Properties["kind"].Type == "string" &&
		s.Properties["apiVersion"].Type == "string" &&
		s.Properties["metadata"].Type == "object" &&
		s.Properties["metadata"].Properties != nil &&
		s.Properties["metadata"].Properties["name"].Type == "string" &&
		s.Properties["metadata"].Properties["generateName"].Type == "string" {
		return s
	}
	out := *s
	out.Properties = make(map[string]apiextensionsv1.JSONSchemaProps, len(s.Properties)+3)
	for k, v := range s.Properties {
		out.Properties[k] = v
	}
	str := apiextensionsv1.JSONSchemaProps{Type: "string"}
	out.Properties["kind"] = str
	out.Properties["apiVersion"] = str
	out.Properties["metadata"] = apiextensionsv1.JSONSchemaProps{
		Type:       "object",
		Properties: map[string]apiextensionsv1.JSONSchemaProps{"name": str, "generateName": str},
	}
	return &out
}
