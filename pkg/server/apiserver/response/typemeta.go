package response

import (
	"bytes"

	"github.com/setpoint-dev/setpoint/pkg/server/watchcache"
)

// typeMetaCuts finds the spans of obj, a JSON object, to leave out so
// that its top-level apiVersion and kind are gone, each with the comma
// that joined it to its neighbours, as kube-apiserver writes the items of
// a built-in kind's list. Spans are in order and do not touch. Anything
// but a well-formed object has none.
func typeMetaCuts(obj []byte) []watchcache.Span {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return nil
	}
	var cuts []watchcache.Span
	cut := func(c watchcache.Span) {
		if n := len(cuts); n > 0 && cuts[n-1].End >= c.Start {
			cuts[n-1].End = max(cuts[n-1].End, c.End)
			return
		}
		cuts = append(cuts, c)
	}
	i++
	prevComma := -1 // the comma before the current member
	kept := false   // a member before the current one stays
	for n := 0; ; n++ {
		i = skipSpace(obj, i)
		if i >= len(obj) {
			return nil
		}
		if obj[i] == '}' {
			return cuts
		}
		if n > 0 {
			if obj[i] != ',' {
				return nil
			}
			prevComma = i
			i = skipSpace(obj, i+1)
		}
		start := i
		keyEnd := stringEnd(obj, i)
		if keyEnd < 0 {
			return nil
		}
		end := valueEnd(obj, keyEnd)
		if end < 0 {
			return nil
		}
		switch string(obj[start:keyEnd]) {
		case `"apiVersion"`, `"kind"`:
			switch {
			case kept:
				// The comma before goes with it.
				cut(watchcache.Span{Start: prevComma, End: end})
			case obj[end] == ',':
				// Nothing before it stays: it takes the comma after.
				cut(watchcache.Span{Start: start, End: end + 1})
			default:
				cut(watchcache.Span{Start: start, End: end})
			}
		default:
			kept = true
		}
		i = end
	}
}

// memberValue returns the value of obj's top-level member key, the last
// one should the key repeat (as JSON decoding keeps the last), or false
// when obj is not a well-formed object or has no such member.
func memberValue(obj []byte, key string) ([]byte, bool) {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return nil, false
	}
	i++
	var value []byte
	found := false
	for n := 0; ; n++ {
		i = skipSpace(obj, i)
		if i >= len(obj) {
			return nil, false
		}
		if obj[i] == '}' {
			return value, found
		}
		if n > 0 {
			if obj[i] != ',' {
				return nil, false
			}
			i = skipSpace(obj, i+1)
		}
		start := i
		keyEnd := stringEnd(obj, i)
		if keyEnd < 0 {
			return nil, false
		}
		end := valueEnd(obj, keyEnd)
		if end < 0 {
			return nil, false
		}
		raw := obj[start+1 : keyEnd-1]
		if bytes.IndexByte(raw, '\\') >= 0 {
			return nil, false // an escaped key: leave it to a JSON decoder
		}
		if string(raw) == key {
			v := skipSpace(obj, keyEnd)
			if v >= end || obj[v] != ':' {
				return nil, false
			}
			value, found = bytes.TrimRight(obj[skipSpace(obj, v+1):end], " \t\r\n"), true
		}
		i = end
	}
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
