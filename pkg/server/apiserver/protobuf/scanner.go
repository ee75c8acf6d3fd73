package protobuf

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"
)

// scanner reads the JSON PartialItem transcodes. It reads only what it
// can read exactly as encoding/json would and reports false for the rest
// (escaped keys, invalid text, numbers other than plain integers), so
// that the caller can fall back to the decoder.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek returns the next byte that is not space, 0 at the end.
func (s *scanner) peek() byte {
	s.space()
	if s.i >= len(s.b) {
		return 0
	}
	return s.b[s.i]
}

// end reports whether nothing but space is left.
func (s *scanner) end() bool { return s.peek() == 0 && s.i == len(s.b) }

func (s *scanner) literal(lit string) bool {
	s.space()
	if !bytes.HasPrefix(s.b[s.i:], []byte(lit)) {
		return false
	}
	s.i += len(lit)
	return true
}

// null consumes a null literal, if that is what comes next.
func (s *scanner) null() bool { return s.peek() == 'n' && s.literal("null") }

// boolInto reads a boolean into a new *bool at v.
func (s *scanner) boolInto(v **bool) bool {
	b, ok := s.boolean()
	*v = &b
	return ok
}

func (s *scanner) boolean() (bool, bool) {
	switch s.peek() {
	case 't':
		return true, s.literal("true")
	case 'f':
		return false, s.literal("false")
	}
	return false, false
}

// object calls member for each key of the object that comes next, with
// the scanner at the member's value, which member must consume. An
// escaped key fails it: the decoder matches field names after unescaping.
func (s *scanner) object(member func(key []byte) bool) bool {
	return s.objectOf(exactKeys, member)
}

// keyMode says what objectOf does with an escaped key.
type keyMode int

const (
	exactKeys     keyMode = iota // fail: a field name
	unescapedKeys                // unescape it: a map key
	rawKeys                      // pass it as it is: a value skipped
)

// objectOf is object, with escaped keys treated as keys says.
func (s *scanner) objectOf(keys keyMode, member func(key []byte) bool) bool {
	if s.peek() != '{' {
		return false
	}
	s.i++
	if s.peek() == '}' {
		s.i++
		return true
	}
	for {
		var key []byte
		if keys == unescapedKeys {
			if !s.strInto(&key) {
				return false
			}
		} else if raw, escaped, ok := s.rawString(); ok && (!escaped || keys == rawKeys) {
			key = raw
		} else {
			return false
		}
		if s.peek() != ':' {
			return false
		}
		s.i++
		if !member(key) {
			return false
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

// fields reads an object whose known members (those bits names) may
// each come once, as the decoder fills a struct: read reads a known
// member's value, null leaves the member as absent, and other members
// are skipped, as the decoder ignores unknown fields.
func (s *scanner) fields(bits map[string]uint32, read func(key []byte) bool) bool {
	var seen uint32
	return s.object(func(key []byte) bool {
		bit := bits[string(key)]
		if bit == 0 {
			return s.skip()
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		if s.null() {
			return true
		}
		return read(key)
	})
}

// array calls elem for each element of the array that comes next.
func (s *scanner) array(elem func() bool) bool {
	if s.peek() != '[' {
		return false
	}
	s.i++
	if s.peek() == ']' {
		s.i++
		return true
	}
	for {
		if !elem() {
			return false
		}
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return true
		default:
			return false
		}
	}
}

// rawString reads a string and returns its bytes between the quotes, and
// whether they hold escapes. Control characters, bad escapes and invalid
// UTF-8, which the decoder rejects or replaces, fail it.
func (s *scanner) rawString() (raw []byte, escaped, ok bool) {
	if s.peek() != '"' {
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

// strInto reads a string value into v, unescaped.
func (s *scanner) strInto(v *[]byte) bool {
	start := s.peekAt()
	raw, escaped, ok := s.rawString()
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

// peekAt is the position of the next value.
func (s *scanner) peekAt() int {
	s.space()
	return s.i
}

// intInto reads an integer written plainly (an optional minus and
// digits) that fits an int64.
func (s *scanner) intInto(v *int64) bool {
	start := s.peekAt()
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

// timeInto reads a metav1.Time: an RFC 3339 string.
func (s *scanner) timeInto(t *time.Time) bool {
	var raw []byte
	if !s.strInto(&raw) {
		return false
	}
	parsed, err := time.Parse(time.RFC3339, string(raw))
	if err != nil {
		return false
	}
	*t = parsed
	return true
}

// skip consumes the value that comes next, which must be well formed.
func (s *scanner) skip() bool {
	switch c := s.peek(); {
	case c == '"':
		_, _, ok := s.rawString()
		return ok
	case c == '{':
		return s.objectOf(rawKeys, func([]byte) bool { return s.skip() })
	case c == '[':
		return s.array(s.skip)
	case c == 't' || c == 'f':
		_, ok := s.boolean()
		return ok
	case c == 'n':
		return s.null()
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	}
	return false
}

// number consumes a JSON number of any form.
func (s *scanner) number() bool {
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
