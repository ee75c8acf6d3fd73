package jsonscan

// DecodeObject returns what sigs.k8s.io/json's case-sensitive decoders
// (UnmarshalCaseSensitivePreserveInts, and UnmarshalStrict without a
// strict problem) make of the JSON object b decoded into a
// map[string]any: objects as map[string]any, arrays as []any, integers
// as int64. It reports false for what it leaves to them: numbers that
// are not plain integers (the decoder's float64), a key repeated within
// an object (the decoder keeps the last, or reports it), text that is not
// one object, and what a Scanner does not read.
func DecodeObject(b []byte) (map[string]any, bool) {
	s := New(b)
	if s.Peek() != '{' {
		return nil, false
	}
	m, ok := s.objectValue()
	if !ok || !s.End() {
		return nil, false
	}
	return m, true
}

func (s *Scanner) objectValue() (map[string]any, bool) {
	m := map[string]any{}
	ok := s.ObjectOf(UnescapedKeys, func(key []byte) bool {
		if _, repeated := m[string(key)]; repeated {
			return false
		}
		v, ok := s.value()
		m[string(key)] = v
		return ok
	})
	return m, ok
}

func (s *Scanner) value() (any, bool) {
	switch s.Peek() {
	case '{':
		return s.objectValue()
	case '[':
		out := []any{}
		ok := s.Array(func() bool {
			v, ok := s.value()
			out = append(out, v)
			return ok
		})
		return out, ok
	case '"':
		var b []byte
		if !s.StringInto(&b) {
			return nil, false
		}
		return string(b), true
	case 't', 'f':
		return s.Boolean()
	case 'n':
		return nil, s.Null()
	}
	var n int64
	if !s.IntInto(&n) {
		return nil, false
	}
	return n, true
}
