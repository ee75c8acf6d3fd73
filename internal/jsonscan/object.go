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

// objectValue, arrayValue and value read without callbacks: a closure per object or
// array would be one more allocation each, and these allocate little
// else.
func (s *Scanner) objectValue() (map[string]any, bool) {
	if s.depth++; s.depth > maxDepth {
		return nil, false
	}
	s.i++ // the caller saw '{'
	m := map[string]any{}
	if s.Peek() == '}' {
		s.i++
		s.depth--
		return m, true
	}
	for {
		var key []byte
		if !s.StringInto(&key) || s.Peek() != ':' {
			return nil, false
		}
		s.i++
		if _, repeated := m[string(key)]; repeated {
			return nil, false
		}
		v, ok := s.value()
		if !ok {
			return nil, false
		}
		m[string(key)] = v
		switch s.Peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			s.depth--
			return m, true
		default:
			return nil, false
		}
	}
}

func (s *Scanner) arrayValue() ([]any, bool) {
	if s.depth++; s.depth > maxDepth {
		return nil, false
	}
	s.i++ // the caller saw '['
	out := []any{}
	if s.Peek() == ']' {
		s.i++
		s.depth--
		return out, true
	}
	for {
		v, ok := s.value()
		if !ok {
			return nil, false
		}
		out = append(out, v)
		switch s.Peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			s.depth--
			return out, true
		default:
			return nil, false
		}
	}
}

func (s *Scanner) value() (any, bool) {
	switch s.Peek() {
	case '{':
		return s.objectValue()
	case '[':
		return s.arrayValue()
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
