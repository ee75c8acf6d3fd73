package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"

	"k8s.io/kube-openapi/pkg/validation/spec"
)

// format is one encoding of a document.
type format int

const (
	v2JSON format = iota
	v2Proto
	v3JSON
	v3Proto
	numFormats
)

// fragment is one part of the documents in each format: a definition
// (shared by every document that includes it) or a group-version's paths.
// Encodings are made on first use; keep says which are kept. Memory goes
// to what is both costly to remake and often asked for: the v2 protobuf
// (kubectl's), and encodings of definitions several documents share. The
// rest is remade per request, byte for byte the same.
type fragment struct {
	mu   sync.Mutex
	enc  [numFormats][]byte
	make func(format, *fragment) ([]byte, error)
	keep func(format) bool
}

// get returns the fragment's encoding in format f.
func (fr *fragment) get(f format) ([]byte, error) {
	fr.mu.Lock()
	defer fr.mu.Unlock()
	return fr.getLocked(f)
}

func (fr *fragment) getLocked(f format) ([]byte, error) {
	if b := fr.enc[f]; b != nil {
		return b, nil
	}
	b, err := fr.make(f, fr)
	if err == nil && fr.keep(f) {
		fr.enc[f] = b
	}
	return b, err
}

// jsonOf returns the JSON the protobuf form f is made from. Called by make
// with fr.mu held.
func (fr *fragment) jsonOf(f format) ([]byte, error) {
	if f == v3Proto {
		return fr.getLocked(v3JSON)
	}
	return fr.getLocked(v2JSON)
}

// defKey identifies a definition: resources may share a schema (all share
// ObjectMeta's), and then share its fragment.
type defKey struct {
	name   string
	schema *spec.Schema
	// list describes a list kind made here rather than given.
	list *listDef
}

// definition is a definition fragment, counted by the group-versions that
// include it.
type definition struct {
	defKey
	fragment
	// refs changes under the Service's lock.
	refs atomic.Int32
}

func newDefinition(k defKey) *definition {
	d := &definition{defKey: k}
	d.make = d.encode
	d.keep = func(f format) bool { return f == v2Proto || d.refs.Load() > 1 }
	return d
}

// encode renders the definition as one member of a definitions (v2) or
// components.schemas (v3) object, or as the protobuf of that.
func (d *definition) encode(f format, fr *fragment) ([]byte, error) {
	switch f {
	case v2JSON, v3JSON:
		s := d.schema
		if d.list != nil {
			s = d.list.schema()
		}
		if f == v2JSON {
			s = toV2(s)
		} else {
			s = wrapRefs(v3Form(s))
		}
		body, err := json.Marshal(s)
		if err != nil {
			return nil, fmt.Errorf("openapi: encoding definition %s: %w", d.name, err)
		}
		body = yamlSafe(body)
		if f == v3JSON {
			body = bytes.ReplaceAll(body, []byte(`"$ref":"`+refPrefix), []byte(`"$ref":"`+v3Prefix))
		}
		return append(append(mustJSON(d.name), ':'), body...), nil
	}
	member, err := fr.jsonOf(f)
	if err != nil {
		return nil, err
	}
	if f == v2Proto {
		return v2DefProto(member)
	}
	return v3DefProto(member)
}
