package typedjson

import (
	"reflect"
	"sync"

	"github.com/setpoint-dev/setpoint/internal/jsonscan"
)

// Decoder decodes JSON objects of one struct type.
type Decoder struct {
	root *structPlan
}

var decoders sync.Map // reflect.Type -> *Decoder, nil when it has no plan

// For returns the Decoder of struct type t, compiled on first use, or nil
// when t is nil or cannot be planned (a field name the decoder and the converter
// would read differently, unexported fields, inline pointers): every body
// of such a type takes the reference path.
func For(t reflect.Type) *Decoder {
	if t == nil {
		return nil
	}
	if d, ok := decoders.Load(t); ok {
		return d.(*Decoder)
	}
	var d *Decoder
	if t.Kind() == reflect.Struct && !ownForm(t) {
		c := compiler{structs: map[reflect.Type]*structPlan{}, ok: true}
		if root := c.structOf(t); root != nil && c.ok {
			d = &Decoder{root: root}
		}
	}
	actual, _ := decoders.LoadOrStore(t, d)
	return actual.(*Decoder)
}

// Decode returns what the converter makes of the value the strict
// decoder makes of body, and true; or false when body is not read here
// exactly as the decoder reads it without errors or strict problems.
func (d *Decoder) Decode(body []byte) (map[string]any, bool) {
	s := jsonscan.New(body)
	if s.Peek() != '{' {
		return nil, false
	}
	m, ok := d.root.object(s)
	if !ok || !s.End() {
		return nil, false
	}
	return m, true
}
