// Package jsonscan reads JSON the way encoding/json's decoder would, for
// the fast paths that skip the decoder: the protobuf transcoder of stored
// objects and the typed request decoder. A Scanner reads only what it can
// read exactly as the decoder would and reports false for the rest
// (escaped field names, invalid text, numbers other than plain integers),
// so that its caller can fall back to the decoder.
package jsonscan

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"
)

// Scanner reads one JSON text from its start.
type Scanner struct {
	b     []byte
	i     int
	depth int
}

// maxDepth bounds nesting, so that a body of brackets cannot grow the
// reading goroutine's stack without bound: deeper text goes to the
// decoder, which has its own bound (10,000).
const maxDepth = 1000

// New returns a Scanner at the start of b.
func New(b []byte) *Scanner { return &Scanner{b: b} }

// Span returns the text from position start to where the scanner is.
func (s *Scanner) Span(start int) []byte { return s.b[start:s.i] }

func (s *Scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// Peek returns the next byte that is not space, 0 at the end.
func (s *Scanner) Peek() byte {
	s.space()
	if s.i >= len(s.b) {
		return 0
	}
	return s.b[s.i]
}

// End reports whether nothing but space is left.
func (s *Scanner) End() bool { return s.Peek() == 0 && s.i == len(s.b) }

func (s *Scanner) literal(lit string) bool {
	s.space()
	if !bytes.HasPrefix(s.b[s.i:], []byte(lit)) {
		return false
	}
	s.i += len(lit)
	return true
}

// Null consumes a null literal, if that is what comes next.
func (s *Scanner) Null() bool { return s.Peek() == 'n' && s.literal("null") }

// BoolInto reads a boolean into a new *bool at v.
func (s *Scanner) BoolInto(v **bool) bool {
	b, ok := s.Boolean()
	*v = &b
	return ok
}

func (s *Scanner) Boolean() (bool, bool) {
	switch s.Peek() {
	case 't':
		return true, s.literal("true")
	case 'f':
		return false, s.literal("false")
	}
	return false, false
}

// Object calls member for each key of the object that comes next, with
// the scanner at the member's value, which member must consume. An
// escaped key fails it: the decoder matches field names after unescaping.
func (s *Scanner) Object(member func(key []byte) bool) bool {
	return s.ObjectOf(ExactKeys, member)
}

// KeyMode says what ObjectOf does with an escaped key.
type KeyMode int

const (
	ExactKeys     KeyMode = iota // fail: a field name
	UnescapedKeys                // unescape it: a map key
	RawKeys                      // pass it as it is: a value skipped
)

// ObjectOf is Object, with escaped keys treated as keys says.
func (s *Scanner) ObjectOf(keys KeyMode, member func(key []byte) bool) bool {
	return s.sequence('{', '}', func() bool {
		var key []byte
		if keys == UnescapedKeys {
			if !s.StringInto(&key) {
				return false
			}
		} else if raw, escaped, ok := s.RawString(); ok && (!escaped || keys == RawKeys) {
			key = raw
		} else {
			return false
		}
		if s.Peek() != ':' {
			return false
		}
		s.i++
		return member(key)
	})
}

// Fields reads an object whose known members (those bits names) may
// each come once, as the decoder fills a struct: read reads a known
// member's value, null leaves the member as absent, and other members
// are skipped, as the decoder ignores unknown fields.
func (s *Scanner) Fields(bits map[string]uint32, read func(key []byte) bool) bool {
	var seen uint32
	return s.Object(func(key []byte) bool {
		bit := bits[string(key)]
		if bit == 0 {
			return s.Skip()
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		if s.Null() {
			return true
		}
		return read(key)
	})
}

// Array calls elem for each element of the array that comes next.
func (s *Scanner) Array(elem func() bool) bool { return s.sequence('[', ']', elem) }

// sequence reads what objects and arrays share: open, elements separated
// by commas, close. It counts the nesting it is in.
func (s *Scanner) sequence(open, close byte, elem func() bool) bool {
	if s.depth++; s.depth > maxDepth || s.Peek() != open {
		return false
	}
	s.i++
	if s.Peek() == close {
		s.i++
		s.depth--
		return true
	}
	for {
		if !elem() {
			return false
		}
		switch s.Peek() {
		case ',':
			s.i++
		case close:
			s.i++
			s.depth--
			return true
		default:
			return false
		}
	}
}

// RawString reads a string and returns its bytes between the quotes, and
// whether they hold escapes. Control characters, bad escapes and invalid
// UTF-8, which the decoder rejects or replaces, fail it.
func (s *Scanner) RawString() (raw []byte, escaped, ok bool) {
	if s.Peek() != '"' {
		return nil, false, false
	}
	start := s.i + 1
	i := start
	for {
		q := bytes.IndexByte(s.b[i:], '"')
		if q < 0 {
			return nil, false, false
		}
		e := bytes.IndexByte(s.b[i:i+q], '\\')
		if e < 0 {
			i += q
			break
		}
		escaped = true
		if i += e + 2; i > len(s.b) {
			return nil, false, false
		}
	}
	raw = s.b[start:i]
	ascii := true
	for _, c := range raw {
		if c < 0x20 {
			return nil, false, false
		}
		if c >= 0x80 {
			ascii = false
		}
	}
	if (!ascii && !utf8.Valid(raw)) || (escaped && !json.Valid(s.b[start-1:i+1])) {
		return nil, false, false
	}
	s.i = i + 1
	return raw, escaped, true
}

// StringInto reads a string value into v, unescaped.
func (s *Scanner) StringInto(v *[]byte) bool {
	start := s.PeekAt()
	raw, escaped, ok := s.RawString()
	if !ok {
		return false
	}
	if !escaped {
		*v = raw
		return true
	}
	var str string
	if json.Unmarshal(s.b[start:s.i], &str) != nil {
		return false
	}
	*v = []byte(str)
	return true
}

// PeekAt is the position of the next value.
func (s *Scanner) PeekAt() int {
	s.space()
	return s.i
}

// IntInto reads an integer written plainly (an optional minus and
// digits) that fits an int64.
func (s *Scanner) IntInto(v *int64) bool {
	start := s.PeekAt()
	i := start
	neg := i < len(s.b) && s.b[i] == '-'
	if neg {
		i++
	}
	digits := i
	var n uint64
	for ; i < len(s.b) && s.b[i] >= '0' && s.b[i] <= '9'; i++ {
		if n > (1<<63)/10 {
			return false
		}
		n = n*10 + uint64(s.b[i]-'0')
	}
	if i == digits || i-digits > 19 || (s.b[digits] == '0' && i-digits > 1) {
		return false
	}
	if i < len(s.b) && (s.b[i] == '.' || s.b[i] == 'e' || s.b[i] == 'E') {
		return false
	}
	switch {
	case neg && n <= 1<<63:
		*v = -int64(n)
	case !neg && n < 1<<63:
		*v = int64(n)
	default:
		return false
	}
	s.i = i
	return true
}

// TimeInto reads a metav1.Time: an RFC 3339 string.
func (s *Scanner) TimeInto(t *time.Time) bool {
	var raw []byte
	if !s.StringInto(&raw) {
		return false
	}
	parsed, err := time.Parse(time.RFC3339, string(raw))
	if err != nil {
		return false
	}
	*t = parsed
	return true
}

// Skip consumes the value that comes next, which must be well formed.
func (s *Scanner) Skip() bool {
	switch c := s.Peek(); {
	case c == '"':
		_, _, ok := s.RawString()
		return ok
	case c == '{':
		return s.ObjectOf(RawKeys, func([]byte) bool { return s.Skip() })
	case c == '[':
		return s.Array(s.Skip)
	case c == 't' || c == 'f':
		_, ok := s.Boolean()
		return ok
	case c == 'n':
		return s.Null()
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	}
	return false
}

// number consumes a JSON number of any form.
func (s *Scanner) number() bool {
	start := s.i
	end := start
	for end < len(s.b) && strings.IndexByte("+-.0123456789eE", s.b[end]) >= 0 {
		end++
	}
	if !json.Valid(s.b[start:end]) {
		return false
	}
	s.i = end
	return true
}
