package generic

import (
	"bytes"
	"strconv"
)

// withResourceVersion returns stored, the JSON storedBytes wrote for an
// object (its map keys sorted, no metadata.resourceVersion), with
// metadata.resourceVersion rev put where json.Marshal would put it: the
// served JSON, without encoding the object a second time. ok is false
// when stored is not in that form; the caller then encodes.
func withResourceVersion(stored []byte, rev int64) (served []byte, ok bool) {
	at, lead, trail, ok := resourceVersionSlot(stored)
	if !ok {
		return nil, false
	}
	member := append([]byte(`"resourceVersion":"`), strconv.FormatInt(rev, 10)...)
	member = append(member, '"')
	out := make([]byte, 0, len(stored)+len(member)+1)
	out = append(out, stored[:at]...)
	if lead {
		out = append(out, ',')
	}
	out = append(out, member...)
	if trail {
		out = append(out, ',')
	}
	return append(out, stored[at:]...), true
}

// resourceVersionSlot finds where metadata.resourceVersion goes in b:
// the offset, and whether a comma goes before (it is the last member) or
// after it (a member follows).
func resourceVersionSlot(b []byte) (at int, lead, trail, ok bool) {
	i := 0
	if i >= len(b) || b[i] != '{' {
		return 0, false, false, false
	}
	i++
	for i < len(b) && b[i] != '}' {
		key, next, ok := jsonString(b, i)
		if !ok || next >= len(b) || b[next] != ':' {
			return 0, false, false, false
		}
		i = next + 1
		if bytes.Equal(key, []byte("metadata")) {
			if i >= len(b) || b[i] != '{' {
				return 0, false, false, false
			}
			return metadataSlot(b, i)
		}
		if i, ok = skipJSONValue(b, i); !ok {
			return 0, false, false, false
		}
		if i < len(b) && b[i] == ',' {
			i++
		}
	}
	return 0, false, false, false
}

// metadataSlot finds the slot in the metadata object starting at b[i].
func metadataSlot(b []byte, i int) (at int, lead, trail, ok bool) {
	i++
	first := true
	for i < len(b) {
		if b[i] == '}' {
			return i, !first, false, true
		}
		key, next, ok := jsonString(b, i)
		if !ok || next >= len(b) || b[next] != ':' {
			return 0, false, false, false
		}
		switch c := bytes.Compare(key, []byte("resourceVersion")); {
		case c == 0:
			return 0, false, false, false
		case c > 0:
			return i, false, true, true
		}
		if i, ok = skipJSONValue(b, next+1); !ok {
			return 0, false, false, false
		}
		if i < len(b) && b[i] == ',' {
			i++
		}
		first = false
	}
	return 0, false, false, false
}

// jsonString reads the string starting at b[i] and returns its raw
// content and the offset after its closing quote. Keys json.Marshal
// writes for metadata need no escapes; one that has them compares as
// written, which only matters for keys that are not metadata's.
func jsonString(b []byte, i int) (raw []byte, next int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return b[i+1 : j], j + 1, true
		}
	}
	return nil, 0, false
}

// skipJSONValue returns the offset after the compact JSON value at b[i].
func skipJSONValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		_, next, ok := jsonString(b, i)
		return next, ok
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				_, next, ok := jsonString(b, j)
				if !ok {
					return 0, false
				}
				j = next - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, true
				}
			}
		}
		return 0, false
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' {
		j++
	}
	return j, j > i
}
