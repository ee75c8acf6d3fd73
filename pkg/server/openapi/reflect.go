package openapi

import (
	"fmt"
	"maps"
	"reflect"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// The methods through which k8s.io/api and k8s.io/apimachinery types
// describe themselves to kube's OpenAPI generator.
type (
	swaggerDocer    interface{ SwaggerDoc() map[string]string }
	schemaTyper     interface{ OpenAPISchemaType() []string }
	schemaFormatter interface{ OpenAPISchemaFormat() string }
	v3OneOfTyper    interface{ OpenAPIV3OneOfTypes() []string }
)

// ForType builds a built-in kind's definitions by reflecting over its Go
// type (e.g. &corev1.ConfigMap{}). root names the kind's definition, which
// carries x-kubernetes-group-version-kind (unless gvk is empty, for types
// that are not kinds); defs holds it and every
// definition it references. Definitions are cached per Go type and shared
// between calls: callers must not modify them.
func ForType(gvk schema.GroupVersionKind, obj any) (root string, defs map[string]*spec.Schema, err error) {
	t := reflect.TypeOf(obj)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return "", nil, fmt.Errorf("openapi: %v is not a struct type", reflect.TypeOf(obj))
	}
	return reflected.forType(gvk, t)
}

// reflected caches the definitions of every Go type ForType has seen.
var reflected = &typeCache{
	names:    map[reflect.Type]string{},
	defs:     map[string]*spec.Schema{},
	closures: map[reflect.Type]map[string]*spec.Schema{},
	roots:    map[rootKey]*spec.Schema{},
	v3:       map[*spec.Schema]*spec.Schema{},
}

type typeCache struct {
	mu    sync.Mutex
	names map[reflect.Type]string
	defs  map[string]*spec.Schema
	// closures holds, per type, its definition and all it references.
	closures map[reflect.Type]map[string]*spec.Schema
	// roots holds a kind's definition with its GVK extension added.
	roots map[rootKey]*spec.Schema
	// v3 holds the OpenAPI v3 form of definitions that differ there
	// (int-or-string and quantity become oneOf).
	v3 map[*spec.Schema]*spec.Schema
}

type rootKey struct {
	t   reflect.Type
	gvk schema.GroupVersionKind
}

func (c *typeCache) forType(gvk schema.GroupVersionKind, t reflect.Type) (string, map[string]*spec.Schema, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	name := c.define(t)
	closure, ok := c.closures[t]
	if !ok {
		closure = map[string]*spec.Schema{}
		collectRefs(c.defs[name], name, c.defs, closure)
		c.closures[t] = closure
	}
	root := c.defs[name]
	if gvk.Kind != "" {
		key := rootKey{t, gvk}
		if root, ok = c.roots[key]; !ok {
			root = withGVK(c.defs[name], gvk)
			c.roots[key] = root
		}
	}
	out := maps.Clone(closure)
	out[name] = root
	return name, out, nil
}

// v3Form returns the schema a definition has in OpenAPI v3 documents.
func v3Form(s *spec.Schema) *spec.Schema {
	reflected.mu.Lock()
	defer reflected.mu.Unlock()
	if v, ok := reflected.v3[s]; ok {
		return v
	}
	return s
}

// define returns the definition name of a named type, building its
// definition (and those of the types it uses) the first time.
func (c *typeCache) define(t reflect.Type) string {
	if name, ok := c.names[t]; ok {
		return name
	}
	name := typeName(t)
	s := new(spec.Schema)
	// Registered before building, so recursive types refer to themselves.
	c.names[t] = name
	c.defs[name] = s
	c.build(s, t, name)
	return name
}

func (c *typeCache) build(s *spec.Schema, t reflect.Type, name string) {
	ptr := reflect.New(t).Interface()
	docs := swaggerDoc(t)
	s.Description = docs[""]
	if s.Description == "" {
		s.Description = typeDocs[name]
	}
	if st, ok := ptr.(schemaTyper); ok {
		s.Type = st.OpenAPISchemaType()
		if f, ok := ptr.(schemaFormatter); ok {
			s.Format = f.OpenAPISchemaFormat()
		}
		if o, ok := ptr.(v3OneOfTyper); ok {
			v3 := &spec.Schema{SchemaProps: spec.SchemaProps{Description: s.Description, Format: s.Format}}
			for _, typ := range o.OpenAPIV3OneOfTypes() {
				v3.OneOf = append(v3.OneOf, spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{typ}}})
			}
			c.v3[s] = v3
		}
		return
	}
	s.Type = []string{"object"}
	c.addFields(s, t, name, docs)
	if ext := typeMarkers[name]; ext != nil {
		s.Extensions = maps.Clone(ext)
	}
}

// addFields adds the JSON fields of struct type t to s, following
// encoding/json: embedded structs without a json name are inlined.
func (c *typeCache) addFields(s *spec.Schema, t reflect.Type, name string, docs map[string]string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		jsonName, opts, _ := strings.Cut(tag, ",")
		if jsonName == "-" && opts == "" {
			continue
		}
		if f.Anonymous && jsonName == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				c.addFields(s, ft, typeName(ft), swaggerDoc(ft))
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if jsonName == "" {
			jsonName = f.Name
		}
		prop := c.propSchema(f.Type)
		prop.Description = docs[jsonName]
		if v := f.Tag.Get("patchStrategy"); v != "" {
			prop.AddExtension("x-kubernetes-patch-strategy", v)
		}
		if v := f.Tag.Get("patchMergeKey"); v != "" {
			prop.AddExtension("x-kubernetes-patch-merge-key", v)
		}
		for k, v := range fieldMarkers[name+"."+jsonName] {
			prop.AddExtension(k, v)
		}
		if s.Properties == nil {
			s.Properties = map[string]spec.Schema{}
		}
		s.Properties[jsonName] = prop
		// kube's generator: a field is required unless omitempty (or a
		// +optional comment, which reflection cannot see).
		if !hasOpt(opts, "omitempty") && !hasOpt(opts, "omitzero") && !optionalFields[name+"."+jsonName] {
			s.Required = append(s.Required, jsonName)
		}
	}
}

// swaggerDoc returns the field descriptions of struct type t from its
// SwaggerDoc method, unless that method is promoted from an embedded type
// (TypeMeta has one) and so describes that type instead.
func swaggerDoc(t reflect.Type) map[string]string {
	d, ok := reflect.New(t).Interface().(swaggerDocer)
	if !ok {
		return nil
	}
	docs := d.SwaggerDoc()
	if t.Kind() == reflect.Struct {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.Anonymous {
				continue
			}
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if e, ok := reflect.New(ft).Interface().(swaggerDocer); ok && maps.Equal(e.SwaggerDoc(), docs) {
				return nil
			}
		}
	}
	return docs
}

func hasOpt(opts, want string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == want {
			return true
		}
	}
	return false
}

var timeType = reflect.TypeOf(time.Time{})

// isNamed reports whether t gets a definition of its own rather than being
// described inline: structs, and types that describe themselves.
func isNamed(t reflect.Type) bool {
	if t == timeType || t.PkgPath() == "" || t.Name() == "" {
		return false
	}
	if t.Kind() == reflect.Struct {
		return true
	}
	_, ok := reflect.New(t).Interface().(schemaTyper)
	return ok
}

// propSchema describes a value of type t as a property.
func (c *typeCache) propSchema(t reflect.Type) spec.Schema {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if isNamed(t) {
		return spec.Schema{SchemaProps: spec.SchemaProps{Ref: spec.MustCreateRef(refPrefix + c.define(t))}}
	}
	if t == timeType {
		return typed("string", "date-time")
	}
	switch t.Kind() {
	case reflect.String:
		return typed("string", "")
	case reflect.Bool:
		return typed("boolean", "")
	case reflect.Int, reflect.Int16, reflect.Int32, reflect.Uint, reflect.Uint16:
		return typed("integer", "int32")
	case reflect.Int8, reflect.Uint8:
		return typed("integer", "byte")
	case reflect.Int64, reflect.Uint32, reflect.Uint64:
		return typed("integer", "int64")
	case reflect.Float32:
		return typed("number", "float")
	case reflect.Float64:
		return typed("number", "double")
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return typed("string", "byte")
		}
		items := c.propSchema(t.Elem())
		s := typed("array", "")
		s.Items = &spec.SchemaOrArray{Schema: &items}
		return s
	case reflect.Map:
		v := c.propSchema(t.Elem())
		s := typed("object", "")
		s.AdditionalProperties = &spec.SchemaOrBool{Allows: true, Schema: &v}
		return s
	case reflect.Struct:
		// Anonymous struct types: described inline.
		s := typed("object", "")
		c.addFields(&s, t, "", nil)
		return s
	}
	// Interfaces and anything else: any value.
	return spec.Schema{}
}

func typed(typ, format string) spec.Schema {
	return spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{typ}, Format: format}}
}

// withGVK returns a copy of s naming the kind it describes.
func withGVK(s *spec.Schema, gvk schema.GroupVersionKind) *spec.Schema {
	c := *s
	c.Extensions = maps.Clone(s.Extensions)
	c.AddExtension("x-kubernetes-group-version-kind", []any{map[string]any{
		"group": gvk.Group, "version": gvk.Version, "kind": gvk.Kind,
	}})
	return &c
}

// collectRefs adds s (named name) and every definition it refers to,
// transitively, to out.
func collectRefs(s *spec.Schema, name string, defs, out map[string]*spec.Schema) {
	if _, seen := out[name]; seen {
		return
	}
	out[name] = s
	walkRefs(s, func(ref string) {
		if d, ok := defs[ref]; ok {
			collectRefs(d, ref, defs, out)
		}
	})
}

// walkRefs calls fn with the definition name of every reference in s.
func walkRefs(s *spec.Schema, fn func(string)) {
	if s == nil {
		return
	}
	if r := s.Ref.String(); r != "" {
		fn(strings.TrimPrefix(r, refPrefix))
	}
	for k := range s.Properties {
		p := s.Properties[k]
		walkRefs(&p, fn)
	}
	if s.Items != nil {
		walkRefs(s.Items.Schema, fn)
		for i := range s.Items.Schemas {
			walkRefs(&s.Items.Schemas[i], fn)
		}
	}
	if s.AdditionalProperties != nil {
		walkRefs(s.AdditionalProperties.Schema, fn)
	}
	for _, l := range [][]spec.Schema{s.AllOf, s.AnyOf, s.OneOf} {
		for i := range l {
			walkRefs(&l[i], fn)
		}
	}
	walkRefs(s.Not, fn)
}
