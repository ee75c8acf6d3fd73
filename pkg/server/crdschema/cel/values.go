package cel

import (
	"encoding/base64"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"

	"github.com/setpoint-dev/setpoint/pkg/server/crdschema"
)

// Objects arrive as map[string]any decoded from JSON. Rather than converting
// the whole object to CEL before each evaluation, values are wrapped where
// they are read: a rule reading self.spec.replicas converts just the three
// values on that path. The conversions follow kube's (formats become
// timestamps, durations and bytes; whole numbers in number fields become
// doubles) and report data that does not match the schema as CEL errors,
// never panics.

// toVal converts a JSON value to CEL according to t.
func (t *declType) toVal(v any) ref.Val {
	if v == nil {
		if t.nullable {
			return types.NullValue
		}
		return types.NewErr("invalid data, got null for schema with nullable=false")
	}
	switch t.kind {
	case kindIntOrString:
		if x, ok := v.(string); ok {
			return types.String(x)
		}
		if n, ok := asInt(v); ok {
			return types.Int(n)
		}
		return types.NewErr("invalid data, expected XIntOrString value to be either a string or integer")
	case kindBool:
		if b, ok := v.(bool); ok {
			return types.Bool(b)
		}
		return types.NewErr("invalid data, expected bool, got %T", v)
	case kindInt:
		if n, ok := asInt(v); ok {
			return types.Int(n)
		}
		return types.NewErr("invalid data, expected int, got %T", v)
	case kindDouble:
		// JSON (and YAML turned JSON) writes 1.0 as 1, decoded as an int
		switch x := v.(type) {
		case float64:
			return types.Double(x)
		case float32:
			return types.Double(x)
		}
		if n, ok := asInt(v); ok {
			return types.Double(n)
		}
		return types.NewErr("invalid data, expected float, got %T", v)
	case kindList:
		if l, ok := v.([]any); ok {
			return &listVal{t: t, items: l}
		}
		return types.NewErr("invalid data, expected an array for the provided schema with type=array")
	case kindMap, kindObject:
		if m, ok := v.(map[string]any); ok {
			if t.kind == kindMap {
				return &mapVal{t: t, m: m}
			}
			return &objectVal{t: t, m: m}
		}
		return types.NewErr("invalid data, expected a map for the provided schema with type=object")
	}
	s, ok := v.(string)
	if !ok {
		return types.NewErr("invalid data, expected string, got %T", v)
	}
	switch t.kind {
	case kindBytes:
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return types.NewErr("Invalid byte formatted string %s: %v", s, err)
		}
		return types.Bytes(b)
	case kindDuration:
		d, err := parseDuration(s)
		if err != nil {
			return types.NewErr("Invalid duration %s: %v", s, err)
		}
		return types.Duration{Duration: d}
	case kindDate:
		d, err := parseDate(s)
		if err != nil {
			return types.NewErr("Invalid date formatted string %s: %v", s, err)
		}
		return types.Timestamp{Time: d}
	case kindDateTime:
		d, err := parseDateTime(s)
		if err != nil {
			return types.NewErr("Invalid date-time formatted string %s: %v", s, err)
		}
		return types.Timestamp{Time: d}
	}
	return types.String(s)
}

// objectVal is an object with declared properties. Rules see it as a map
// with one entry per declared property that is set, as in kube: an absent
// or null property fails has() and reading it is a "no such key" error.
type objectVal struct {
	t *declType
	m map[string]any
}

var _ traits.Mapper = (*objectVal)(nil)

func (o *objectVal) Find(key ref.Val) (ref.Val, bool) {
	k, ok := key.(types.String)
	if !ok {
		return types.MaybeNoSuchOverloadErr(key), true
	}
	f := o.t.field(string(k))
	if f == nil {
		return nil, false
	}
	v, ok := o.m[f.json]
	if !ok || v == nil {
		return nil, false
	}
	return f.t.toVal(v), true
}

func (o *objectVal) Get(key ref.Val) ref.Val      { return get(o, key) }
func (o *objectVal) Contains(key ref.Val) ref.Val { return contains(o, key) }
func (o *objectVal) Size() ref.Val                { return types.Int(len(o.m)) }
func (o *objectVal) Type() ref.Type               { return types.MapType }
func (o *objectVal) Value() any                   { return o.m }

func (o *objectVal) Iterator() traits.Iterator {
	keys := make([]string, 0, len(o.t.fields))
	for i := range o.t.fields {
		if v, ok := o.m[o.t.fields[i].json]; ok && v != nil {
			keys = append(keys, o.t.fields[i].name)
		}
	}
	return &keyIterator{keys: keys}
}

// Equal compares declared properties as CEL values and anything else the
// object holds (unknown fields kept by x-kubernetes-preserve-unknown-fields)
// as JSON, like kube.
func (o *objectVal) Equal(other ref.Val) ref.Val {
	om, ok := other.(traits.Mapper)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	if o.Size() != om.Size() {
		return types.False
	}
	for k, v := range o.m {
		f := o.t.fieldByJSON(k)
		if f == nil {
			oo, ok := other.(*objectVal)
			if !ok {
				return types.MaybeNoSuchOverloadErr(other)
			}
			if ov, ok := oo.m[k]; ok && !crdschema.EqualJSON(v, ov) {
				return types.False
			}
			continue
		}
		name := types.String(f.name)
		a, aok := o.Find(name)
		b, bok := om.Find(name)
		if aok != bok {
			return types.False
		}
		if !aok {
			continue
		}
		if eq := a.Equal(b); eq != types.True {
			return eq
		}
	}
	return types.True
}

func (o *objectVal) ConvertToNative(typeDesc reflect.Type) (any, error) {
	if reflect.TypeOf(o.m).AssignableTo(typeDesc) {
		return o.m, nil
	}
	return nil, fmt.Errorf("type conversion error from '%s' to '%s'", o.Type(), typeDesc)
}

func (o *objectVal) ConvertToType(typeValue ref.Type) ref.Val {
	return convertMapToType(o, typeValue)
}

// mapVal is an object with additionalProperties: a CEL map from string.
type mapVal struct {
	t *declType
	m map[string]any
}

var _ traits.Mapper = (*mapVal)(nil)

func (m *mapVal) Find(key ref.Val) (ref.Val, bool) {
	k, ok := key.(types.String)
	if !ok {
		return types.MaybeNoSuchOverloadErr(key), true
	}
	v, ok := m.m[string(k)]
	if !ok {
		return nil, false
	}
	return m.t.elem.toVal(v), true
}

func (m *mapVal) Get(key ref.Val) ref.Val      { return get(m, key) }
func (m *mapVal) Contains(key ref.Val) ref.Val { return contains(m, key) }
func (m *mapVal) Size() ref.Val                { return types.Int(len(m.m)) }
func (m *mapVal) Type() ref.Type               { return types.MapType }
func (m *mapVal) Value() any                   { return m.m }

func (m *mapVal) Iterator() traits.Iterator {
	return &keyIterator{keys: slices.Sorted(maps.Keys(m.m))}
}

func (m *mapVal) Equal(other ref.Val) ref.Val {
	om, ok := other.(traits.Mapper)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	if m.Size() != om.Size() {
		return types.False
	}
	for k, v := range m.m {
		ov, found := om.Find(types.String(k))
		if !found {
			return types.False
		}
		if eq := m.t.elem.toVal(v).Equal(ov); eq != types.True {
			return eq
		}
	}
	return types.True
}

func (m *mapVal) ConvertToNative(typeDesc reflect.Type) (any, error) {
	if reflect.TypeOf(m.m).AssignableTo(typeDesc) {
		return m.m, nil
	}
	// e.g. map[string]string for a function taking a native map
	entries := make(map[ref.Val]ref.Val, len(m.m))
	for k, v := range m.m {
		entries[types.String(k)] = m.t.elem.toVal(v)
	}
	return types.NewRefValMap(types.DefaultTypeAdapter, entries).ConvertToNative(typeDesc)
}

func (m *mapVal) ConvertToType(typeValue ref.Type) ref.Val {
	return convertMapToType(m, typeValue)
}

func get(m traits.Mapper, key ref.Val) ref.Val {
	if v, found := m.Find(key); found {
		return v
	}
	return types.ValOrErr(key, "no such key: %v", key)
}

func contains(m traits.Mapper, key ref.Val) ref.Val {
	v, found := m.Find(key)
	if v != nil && types.IsUnknownOrError(v) {
		return v
	}
	return types.Bool(found)
}

func convertMapToType(v ref.Val, typeValue ref.Type) ref.Val {
	switch typeValue {
	case types.MapType:
		return v
	case types.TypeType:
		return types.MapType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", v.Type().TypeName(), typeValue.TypeName())
}

// keyIterator walks the keys of an object or map.
type keyIterator struct {
	iteratorBase
	keys []string
	i    int
}

func (it *keyIterator) HasNext() ref.Val { return types.Bool(it.i < len(it.keys)) }

func (it *keyIterator) Next() ref.Val {
	if it.i >= len(it.keys) {
		return types.NewErr("no more elements")
	}
	k := it.keys[it.i]
	it.i++
	return types.String(k)
}

// iteratorBase gives iterators the ref.Val methods traits.Iterator demands;
// iterators are never values a rule can see.
type iteratorBase struct{}

func (iteratorBase) ConvertToNative(reflect.Type) (any, error) {
	return nil, fmt.Errorf("iterators cannot be converted")
}
func (iteratorBase) ConvertToType(ref.Type) ref.Val {
	return types.NewErr("iterators cannot be converted")
}
func (iteratorBase) Equal(ref.Val) ref.Val { return types.False }
func (iteratorBase) Type() ref.Type        { return types.IteratorType }
func (iteratorBase) Value() any            { return nil }

// asInt reads the Go integer types a decoded JSON value may hold.
func asInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case int32:
		return int64(x), true
	}
	return 0, false
}
