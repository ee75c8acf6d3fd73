package response

import (
	"bytes"

	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
)

// member is one top-level member of a JSON object: its raw key (between
// the quotes, escapes as written), where it starts, where its value
// starts, and where it ends (at the ',' or '}' after it); comma is the
// offset of the comma before it, -1 for the first.
type member struct {
	key                      []byte
	start, value, end, comma int
}

// eachMember calls f with each top-level member of obj, in order, and
// reports whether obj is a well-formed object (f may have been called
// for some members of one that is not).
func eachMember(obj []byte, f func(member)) bool {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	i++
	comma := -1
	for n := 0; ; n++ {
		i = skipSpace(obj, i)
		if i >= len(obj) {
			return false
		}
		if obj[i] == '}' {
			return true
		}
		if n > 0 {
			if obj[i] != ',' {
				return false
			}
			comma = i
			i = skipSpace(obj, i+1)
		}
		start := i
		keyEnd := stringEnd(obj, i)
		if keyEnd < 0 {
			return false
		}
		end := valueEnd(obj, keyEnd)
		if end < 0 {
			return false
		}
		colon := skipSpace(obj, keyEnd)
		if colon >= end || obj[colon] != ':' {
			return false
		}
		f(member{key: obj[start+1 : keyEnd-1], start: start, value: skipSpace(obj, colon+1), end: end, comma: comma})
		i = end
	}
}

// typeMetaCuts finds the spans of obj, a JSON object, to leave out so
// that its top-level apiVersion and kind are gone, each with the comma
// that joined it to its neighbours, as kube-apiserver writes the items of
// a built-in kind's list. Spans are in order and do not touch. Anything
// but a well-formed object has none.
func typeMetaCuts(obj []byte) []watchcache.Span {
	var cuts []watchcache.Span
	cut := func(c watchcache.Span) {
		if n := len(cuts); n > 0 && cuts[n-1].End >= c.Start {
			cuts[n-1].End = max(cuts[n-1].End, c.End)
			return
		}
		cuts = append(cuts, c)
	}
	kept := false // a member before the current one stays
	ok := eachMember(obj, func(m member) {
		switch string(m.key) {
		case "apiVersion", "kind":
			switch {
			case kept:
				// The comma before goes with it.
				cut(watchcache.Span{Start: m.comma, End: m.end})
			case obj[m.end] == ',':
				// Nothing before it stays: it takes the comma after.
				cut(watchcache.Span{Start: m.start, End: m.end + 1})
			default:
				cut(watchcache.Span{Start: m.start, End: m.end})
			}
		default:
			kept = true
		}
	})
	if !ok {
		return nil
	}
	return cuts
}

// memberValue returns the value of obj's top-level member key, the last
// one should the key repeat (as JSON decoding keeps the last), or false
// when obj is not a well-formed object or has no such member.
func memberValue(obj []byte, key string) ([]byte, bool) {
	var value []byte
	found, escaped := false, false
	ok := eachMember(obj, func(m member) {
		if bytes.IndexByte(m.key, '\\') >= 0 {
			escaped = true // an escaped key: leave it to a JSON decoder
		}
		if string(m.key) == key {
			value, found = bytes.TrimRight(obj[m.value:m.end], " \t\r\n"), true
		}
	})
	if !ok || escaped {
		return nil, false
	}
	return value, found
}

// metadataObject is obj cut down to its metadata: a PartialObjectMetadata
// decodes from it without reading past the rest of the object.
func metadataObject(obj []byte) []byte {
	m, ok := memberValue(obj, "metadata")
	if !ok {
		return obj
	}
	b := make([]byte, 0, len(m)+14)
	b = append(b, `{"metadata":`...)
	b = append(b, m...)
	return append(b, '}')
}

// writeCut writes obj without the spans cuts names.
func writeCut(bw *bufferedWriter, obj []byte, cuts []watchcache.Span) {
	at := 0
	for _, c := range cuts {
		bw.Write(obj[at:c.Start])
		at = c.End
	}
	bw.Write(obj[at:])
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index just past the JSON string starting at i,
// or -1.
func stringEnd(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	// Two vectorised searches per escape instead of a loop per byte:
	// object bytes are mostly long strings with few escapes.
	for i++; i < len(b); {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return -1
		}
		esc := bytes.IndexByte(b[i:i+q], '\\')
		if esc < 0 {
			return i + q + 1
		}
		i += esc + 2 // past the escape and the byte it escapes
	}
	return -1
}

// valueEnd returns the index of the ',' or '}' that ends the member whose
// value follows position i (just past its key), or -1.
func valueEnd(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch c := b[i]; c {
		case '"':
			if i = stringEnd(b, i); i < 0 {
				return -1
			}
			continue
		case '{', '[':
			depth++
		case ']':
			depth--
		case '}':
			if depth == 0 {
				return i
			}
			depth--
		case ',':
			if depth == 0 {
				return i
			}
		}
		i++
	}
	return -1
}
