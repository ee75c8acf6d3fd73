package registry

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/fields"
)

// FieldSet returns the values a field selector can match on: metadata.name,
// metadata.namespace for namespaced kinds, and the SelectableFields. An
// entry "name=path" selects under name the value found at path.
func (r *Resource) FieldSet(obj map[string]any) fields.Set {
	p := r.Fields(obj)
	set := make(fields.Set, len(p)/2)
	for i := 0; i < len(p); i += 2 {
		set[p[i]] = p[i+1]
	}
	return set
}

// Fields is FieldSet as the watch cache keeps it with each object.
func (r *Resource) Fields(obj map[string]any) FieldPairs {
	meta, _ := obj["metadata"].(map[string]any)
	p := make(FieldPairs, 0, 2*(2+len(r.SelectableFields)))
	p = p.set("metadata.name", str(meta["name"]))
	if r.Namespaced {
		p = p.set("metadata.namespace", str(meta["namespace"]))
	}
	for _, f := range r.SelectableFields {
		name, path, ok := strings.Cut(f, "=")
		if !ok {
			path = name
		}
		v, _ := Lookup(obj, path)
		p = p.set(name, str(v))
	}
	if fv, ok := r.Strategy.(FieldValuer); ok {
		for k, v := range fv.FieldValues(obj) {
			p = p.set(k, v)
		}
	}
	return slices.Clip(p)
}

// FieldPairs is a set of fields as name, value, name, value...: a
// fields.Fields that costs a tenth of a fields.Set's map, which matters
// with one per cached object. It holds a dozen fields at most, so
// lookups scan.
type FieldPairs []string

// Has implements fields.Fields.
func (p FieldPairs) Has(name string) bool {
	_, ok := p.lookup(name)
	return ok
}

// Get implements fields.Fields.
func (p FieldPairs) Get(name string) string {
	v, _ := p.lookup(name)
	return v
}

func (p FieldPairs) lookup(name string) (string, bool) {
	for i := 0; i+1 < len(p); i += 2 {
		if p[i] == name {
			return p[i+1], true
		}
	}
	return "", false
}

// set sets name to v, replacing an earlier value as a map would.
func (p FieldPairs) set(name, v string) FieldPairs {
	for i := 0; i+1 < len(p); i += 2 {
		if p[i] == name {
			p[i+1] = v
			return p
		}
	}
	return append(p, name, v)
}

// FieldSelectorRefusal is why a field selector on label is refused, in
// kube-apiserver's words for the resource. kube registers a field label
// conversion for the built-in kinds that select on fields of their own
// (the ones with SelectableFields here), and custom resources have one;
// they answer that the label is not supported. Other built-in kinds fall
// to the scheme's default conversion, which names the two metadata
// fields every kind selects on.
func (r *Resource) FieldSelectorRefusal(label string) string {
	if r.Typed && len(r.SelectableFields) == 0 {
		return fmt.Sprintf("%q is not a known field selector: only %q, %q", label, "metadata.name", "metadata.namespace")
	}
	return "field label not supported: " + label
}

// HasField reports whether name can be used in a field selector.
func (r *Resource) HasField(name string) bool {
	switch name {
	case "metadata.name":
		return true
	case "metadata.namespace":
		return r.Namespaced
	}
	for _, f := range r.SelectableFields {
		n, _, _ := strings.Cut(f, "=")
		if n == name {
			return true
		}
	}
	return false
}

// Lookup returns the first value path (a JSONPath, see JSONPath; a
// plain ".spec.replicas" or "spec.replicas" is one) selects in obj. An
// invalid path selects nothing.
func Lookup(obj map[string]any, path string) (any, bool) {
	p, ok := parsedPaths.Load(path)
	if !ok {
		parsed, err := ParseJSONPath(path)
		if err != nil {
			return nil, false
		}
		p, _ = parsedPaths.LoadOrStore(path, parsed)
	}
	found := p.(JSONPath).Find(obj)
	if len(found) == 0 {
		return nil, false
	}
	return found[0], true
}

// parsedPaths keeps each path parsed once: the same few column and field
// paths are looked up for every object served.
var parsedPaths sync.Map

func str(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	default:
		return fmt.Sprint(v)
	}
}
