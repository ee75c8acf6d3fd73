package typedjson

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// compiler builds the plans of one root type. Struct plans are shared by
// type, so recursive types (a schema's properties) compile.
type compiler struct {
	structs map[reflect.Type]*structPlan
	ok      bool
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// ownForm reports whether t has a JSON or unstructured form of its own,
// which only the reference path reproduces.
func ownForm(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return t.Implements(jsonUnmarshaler) || pt.Implements(jsonUnmarshaler) ||
		t.Implements(textUnmarshaler) || pt.Implements(textUnmarshaler) ||
		value.TypeReflectEntryOf(t).CanConvertToUnstructured()
}

// planOf returns the plan of a value of type t, or nil when a field of
// that type must take the reference path.
func (c *compiler) planOf(t reflect.Type) plan {
	if ownForm(t) {
		return nil
	}
	switch t.Kind() {
	case reflect.String:
		return stringPlan{}
	case reflect.Bool:
		return boolPlan{}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return intPlan{bits: t.Bits()}
	case reflect.Pointer:
		if elem := c.planOf(t.Elem()); elem != nil {
			return pointerPlan{elem: elem}
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !ownForm(t.Elem()) {
			return bytesPlan{}
		}
		if elem := c.planOf(t.Elem()); elem != nil {
			return slicePlan{elem: elem}
		}
	case reflect.Map:
		if t.Key().Kind() != reflect.String || ownForm(t.Key()) {
			return nil
		}
		if elem := c.planOf(t.Elem()); elem != nil {
			return mapPlan{elem: elem}
		}
	case reflect.Struct:
		if p := c.structOf(t); p != nil {
			return p
		}
	}
	// Floats, unsigned integers, interfaces, arrays and the rest.
	return nil
}

// structOf returns the plan of struct type t. A type whose fields the
// decoder and the converter would name differently marks the whole
// compilation failed.
func (c *compiler) structOf(t reflect.Type) *structPlan {
	if p, ok := c.structs[t]; ok {
		return p
	}
	p := &structPlan{index: map[string]int{}}
	c.structs[t] = p
	if !c.fields(p, t) {
		c.ok = false
		return nil
	}
	zero, err := runtime.DefaultUnstructuredConverter.ToUnstructured(reflect.New(t).Interface())
	if err != nil || !plainJSON(zero) {
		c.ok = false
		return nil
	}
	for i := range p.fields {
		f := &p.fields[i]
		if v, ok := zero[f.name]; ok {
			f.zero, f.hasZero = v, true
		}
	}
	p.zero = zero
	return p
}

// fields adds t's fields to p, those of inline structs with them.
func (c *compiler) fields(p *structPlan, t reflect.Type) bool {
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			return false
		}
		tag, hasTag := sf.Tag.Lookup("json")
		if tag == "-" {
			continue // neither reads it; the decoder reports it unknown
		}
		name, opts, _ := strings.Cut(tag, ",")
		if !hasTag || name == "" {
			if !sf.Anonymous || sf.Type.Kind() != reflect.Struct || strings.Contains(opts, "embed") {
				return false
			}
			if !c.fields(p, sf.Type) {
				return false
			}
			continue
		}
		f := field{name: name}
		for o := range strings.SplitSeq(opts, ",") {
			switch o {
			case "omitempty":
				f.omitempty = true
			case "", "inline":
			default:
				f.byReference = true // omitzero, string: the reference path's rules
			}
		}
		if !f.byReference {
			f.plan = c.planOf(sf.Type)
		}
		if f.plan == nil {
			f.byReference = true
			f.wrapper = reflect.StructOf([]reflect.StructField{{
				Name: "F", Type: sf.Type, Tag: reflect.StructTag(`json:"f` + strings.TrimPrefix(tag, name) + `"`),
			}})
			f.null, f.nullPresent, f.nullKept = wrappedNull(f.wrapper)
		}
		if _, dup := p.index[name]; dup {
			return false
		}
		p.index[name] = len(p.fields)
		p.fields = append(p.fields, f)
	}
	return true
}

// wrappedNull is what the reference path makes of a null for the field
// of wrapper, kept when it is a value that may be shared.
func wrappedNull(wrapper reflect.Type) (v any, present, kept bool) {
	v, present, ok := byReference(wrapper, []byte("null"))
	if !ok {
		return nil, false, false
	}
	switch v.(type) {
	case nil, string, bool, int64, float64:
		return v, present, true
	}
	return nil, false, false
}

// plainJSON reports whether v holds only what DeepCopyJSONValue copies.
func plainJSON(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			if !plainJSON(e) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range v {
			if !plainJSON(e) {
				return false
			}
		}
		return true
	case nil, string, bool, int64, float64:
		return true
	}
	return false
}
