package cel

import "strings"

// Property names of a schema become CEL field names. JSON allows names CEL
// identifiers do not, so kube escapes them and rules must use the escaped
// form: "x-y" is self.x__dash__y. The escaping is part of the rule language,
// so it follows kube exactly.

// celReserved are words CEL reserves; a property with such a name is
// reachable as __name__ (and, since kube 1.31, as the bare name too).
var celReserved = map[string]bool{
	"true": true, "false": true, "null": true, "in": true,
	"as": true, "break": true, "const": true, "continue": true, "else": true,
	"for": true, "function": true, "if": true, "import": true, "let": true,
	"loop": true, "package": true, "namespace": true, "return": true,
	"var": true, "void": true, "while": true,
}

// escapeName returns the CEL field name of a property, or false when the
// name cannot be written in CEL at all (the property is then invisible to
// rules, as in kube).
func escapeName(name string) (string, bool) {
	if name == "" || (name[0] >= '0' && name[0] <= '9') {
		return "", false
	}
	if celReserved[name] {
		return "__" + name + "__", true
	}
	plain := true
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '_':
			if i+1 < len(name) && name[i+1] == '_' {
				plain = false
			}
		case c == '.', c == '-', c == '/':
			plain = false
		default:
			return "", false
		}
	}
	if plain {
		return name, true
	}
	var b strings.Builder
	b.Grow(len(name) + 16)
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c == '_' && i+1 < len(name) && name[i+1] == '_':
			b.WriteString("__underscores__")
			i++
		case c == '.':
			b.WriteString("__dot__")
		case c == '-':
			b.WriteString("__dash__")
		case c == '/':
			b.WriteString("__slash__")
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}
