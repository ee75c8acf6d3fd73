package response

// withoutTypeMeta returns obj, one JSON object, without its top-level
// apiVersion and kind: kube-apiserver's lists of built-in kinds carry
// them once, on the list, not on each item. Anything that is not a
// well-formed object comes back unchanged.
func withoutTypeMeta(obj []byte) []byte {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return obj
	}
	out := make([]byte, 1, len(obj))
	out[0] = '{'
	i++
	for n := 0; ; n++ {
		i = skipSpace(obj, i)
		if i >= len(obj) {
			return obj
		}
		if obj[i] == '}' {
			return append(out, '}')
		}
		if n > 0 {
			if obj[i] != ',' {
				return obj
			}
			i = skipSpace(obj, i+1)
		}
		start := i
		keyEnd := stringEnd(obj, i)
		if keyEnd < 0 {
			return obj
		}
		end := valueEnd(obj, keyEnd)
		if end < 0 {
			return obj
		}
		switch string(obj[start:keyEnd]) {
		case `"apiVersion"`, `"kind"`:
		default:
			if len(out) > 1 {
				out = append(out, ',')
			}
			out = append(out, obj[start:end]...)
		}
		i = end
	}
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
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
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
