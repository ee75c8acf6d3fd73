package typedjson

import (
	"encoding/base64"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	sigsjson "sigs.k8s.io/json"

	"github.com/setpoint-dev/setpoint/internal/jsonscan"
)

// plan reads the value of one Go type from the scanner and returns its
// unstructured form, whether the converter counts it empty for
// omitempty, and false when the reference path must answer. A null is
// read as the decoder reads it: the zero value.
type plan interface {
	decode(s *jsonscan.Scanner) (v any, empty, ok bool)
}

type stringPlan struct{}

func (stringPlan) decode(s *jsonscan.Scanner) (any, bool, bool) {
	if s.Null() {
		return "", true, true
	}
	var b []byte
	if !s.StringInto(&b) {
		return nil, false, false
	}
	return string(b), len(b) == 0, true
}

type boolPlan struct{}

func (boolPlan) decode(s *jsonscan.Scanner) (any, bool, bool) {
	if s.Null() {
		return false, true, true
	}
	b, ok := s.Boolean()
	return b, !b, ok
}

// intPlan reads a signed integer of the given size; the converter widens
// it to int64.
type intPlan struct{ bits int }

func (p intPlan) decode(s *jsonscan.Scanner) (any, bool, bool) {
	if s.Null() {
		return int64(0), true, true
	}
	var n int64
	if !s.IntInto(&n) {
		return nil, false, false
	}
	if p.bits < 64 && (n < -1<<(p.bits-1) || n >= 1<<(p.bits-1)) {
		return nil, false, false // the decoder's overflow error
	}
	return n, n == 0, true
}

// bytesPlan reads a []byte: base64 in JSON, decoded as the decoder does
// and written again as the converter does.
type bytesPlan struct{}

func (bytesPlan) decode(s *jsonscan.Scanner) (any, bool, bool) {
	if s.Null() {
		return nil, true, true
	}
	var b []byte
	if !s.StringInto(&b) {
		return nil, false, false
	}
	raw := make([]byte, base64.StdEncoding.DecodedLen(len(b)))
	n, err := base64.StdEncoding.Decode(raw, b)
	if err != nil {
		return nil, false, false
	}
	return base64.StdEncoding.EncodeToString(raw[:n]), n == 0, true
}

type pointerPlan struct{ elem plan }

func (p pointerPlan) decode(s *jsonscan.Scanner) (any, bool, bool) {
	if s.Null() {
		return nil, true, true
	}
	v, _, ok := p.elem.decode(s)
	return v, false, ok
}

type slicePlan struct{ elem plan }

func (p slicePlan) decode(s *jsonscan.Scanner) (any, bool, bool) {
	if s.Null() {
		return nil, true, true
	}
	out := []any{}
	ok := s.Array(func() bool {
		v, _, ok := p.elem.decode(s)
		out = append(out, v)
		return ok
	})
	return out, len(out) == 0, ok
}

// mapPlan reads a map with string keys. A repeated key is a strict
// problem.
type mapPlan struct{ elem plan }

func (p mapPlan) decode(s *jsonscan.Scanner) (any, bool, bool) {
	if s.Null() {
		return nil, true, true
	}
	out := map[string]any{}
	ok := s.ObjectOf(jsonscan.UnescapedKeys, func(key []byte) bool {
		if _, dup := out[string(key)]; dup {
			return false
		}
		v, _, ok := p.elem.decode(s)
		out[string(key)] = v
		return ok
	})
	return out, len(out) == 0, ok
}

// structPlan reads a struct: its fields by JSON name, inline structs'
// among them, and for those absent what the converter writes for a zero
// value.
type structPlan struct {
	index  map[string]int
	fields []field
	zero   map[string]any // the converter's form of the zero value
}

type field struct {
	name      string
	omitempty bool
	plan      plan
	// zero is the converter's form of the field's zero value, when it
	// writes one (hasZero).
	zero    any
	hasZero bool
	// byReference fields are read by the reference path, as the one
	// field F of wrapper, whose form of a null is kept when it can be
	// shared (nullKept).
	byReference           bool
	wrapper               reflect.Type
	null                  any
	nullPresent, nullKept bool
}

func (p *structPlan) decode(s *jsonscan.Scanner) (any, bool, bool) {
	if s.Null() {
		return runtime.DeepCopyJSON(p.zero), false, true
	}
	m, ok := p.object(s)
	return m, false, ok
}

func (p *structPlan) object(s *jsonscan.Scanner) (map[string]any, bool) {
	m := map[string]any{}
	seen := make([]bool, len(p.fields))
	ok := s.Object(func(key []byte) bool {
		i, known := p.index[string(key)]
		if !known || seen[i] {
			return false // an unknown or repeated field: a strict problem
		}
		seen[i] = true
		return p.fields[i].read(s, m)
	})
	if !ok {
		return nil, false
	}
	for i := range p.fields {
		if f := &p.fields[i]; !seen[i] && f.hasZero {
			m[f.name] = runtime.DeepCopyJSONValue(f.zero)
		}
	}
	return m, true
}

// read reads the field's value into m.
func (f *field) read(s *jsonscan.Scanner, m map[string]any) bool {
	if !f.byReference {
		v, empty, ok := f.plan.decode(s)
		if ok && !(f.omitempty && empty) {
			m[f.name] = v
		}
		return ok
	}
	start := s.PeekAt()
	if s.Null() {
		if f.nullKept {
			if f.nullPresent {
				m[f.name] = f.null
			}
			return true
		}
	} else if !s.Skip() {
		return false
	}
	v, present, ok := byReference(f.wrapper, s.Span(start))
	if ok && present {
		m[f.name] = v
	}
	return ok
}

// byReference decodes value as the field F of wrapper, strictly, and
// converts it: the reference path, for one field.
func byReference(wrapper reflect.Type, value []byte) (v any, present, ok bool) {
	body := make([]byte, 0, len(value)+len(`{"f":}`))
	body = append(append(append(body, `{"f":`...), value...), '}')
	w := reflect.New(wrapper).Interface()
	strict, err := sigsjson.UnmarshalStrict(body, w, sigsjson.DisallowDuplicateFields, sigsjson.DisallowUnknownFields)
	if err != nil || len(strict) > 0 {
		return nil, false, false
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(w)
	if err != nil {
		return nil, false, false
	}
	v, present = u["f"]
	return v, present, true
}
