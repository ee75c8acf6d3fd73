package registry

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// A JSONPath is the subset of JSONPath that printer columns and field
// lookups use: fields (.a, ['a']), indexes ([0], [-1]), wildcards ([*],
// .*) and filters ([?(@.type=="Ready")], comparing with ==, !=, <, <=,
// >, >= against a string, number or boolean, or testing that a field
// exists). kubectl's Ready columns need the filters:
// .status.conditions[?(@.type=="Ready")].status.
type JSONPath []step

type step struct {
	field    string // a field, when not an index, wildcard or filter
	index    *int
	wildcard bool
	filter   *filter
}

type filter struct {
	path  JSONPath // relative to the element (@)
	op    string   // "" tests existence
	value any      // string, float64 or bool
}

var errPath = errors.New("invalid JSONPath")

// ParseJSONPath parses path; surrounding braces ({.a.b}) are allowed.
func ParseJSONPath(path string) (JSONPath, error) {
	p := strings.TrimSpace(path)
	if strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}") {
		p = strings.TrimSpace(p[1 : len(p)-1])
	}
	p = strings.TrimPrefix(p, "$")
	steps, rest, err := parseSteps(p, 0)
	if err != nil {
		return nil, fmt.Errorf("%w %q: %v", errPath, path, err)
	}
	if rest != "" {
		return nil, fmt.Errorf("%w %q: unexpected %q", errPath, path, rest)
	}
	return steps, nil
}

// maxFilterDepth bounds filters within filters, so a hostile path
// cannot recurse deep enough to exhaust the stack.
const maxFilterDepth = 8

// parseSteps reads steps until the input ends or, inside a filter
// (depth > 0), an operator or the closing parenthesis starts.
func parseSteps(p string, depth int) (JSONPath, string, error) {
	if depth > maxFilterDepth {
		return nil, "", errors.New("filters nested too deeply")
	}
	inFilter := depth > 0
	var steps JSONPath
	for p != "" {
		switch {
		case p[0] == '.':
			p = p[1:]
			if strings.HasPrefix(p, "*") {
				steps, p = append(steps, step{wildcard: true}), p[1:]
				continue
			}
			n := fieldEnd(p)
			if n == 0 {
				if p == "" && len(steps) == 0 {
					return steps, "", nil // "." alone is the whole object
				}
				return nil, "", errors.New("empty field name")
			}
			steps, p = append(steps, step{field: p[:n]}), p[n:]
		case p[0] == '[':
			end := closingBracket(p)
			if end < 0 {
				return nil, "", errors.New("unclosed [")
			}
			s, err := parseBracket(strings.TrimSpace(p[1:end]), depth)
			if err != nil {
				return nil, "", err
			}
			steps, p = append(steps, s), p[end+1:]
		case inFilter:
			return steps, p, nil
		default:
			// A leading field without a dot: "spec.replicas".
			if len(steps) > 0 {
				return nil, "", fmt.Errorf("unexpected %q", p)
			}
			p = "." + p
		}
	}
	return steps, "", nil
}

// fieldEnd is the length of the field name at the start of p.
func fieldEnd(p string) int {
	for i, r := range p {
		if r == '.' || r == '[' || r == ' ' || r == '=' || r == '!' || r == '<' || r == '>' || r == ')' {
			return i
		}
	}
	return len(p)
}

// closingBracket finds the ] that closes the [ at p[0], skipping quoted
// strings and nested brackets.
func closingBracket(p string) int {
	depth := 0
	var quote byte
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '[':
			depth++
		case c == ']':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

func parseBracket(inner string, depth int) (step, error) {
	switch {
	case inner == "*":
		return step{wildcard: true}, nil
	case strings.HasPrefix(inner, "?(") && strings.HasSuffix(inner, ")"):
		f, err := parseFilter(strings.TrimSpace(inner[2:len(inner)-1]), depth+1)
		return step{filter: f}, err
	case len(inner) >= 2 && (inner[0] == '\'' || inner[0] == '"') && inner[len(inner)-1] == inner[0]:
		return step{field: inner[1 : len(inner)-1]}, nil
	}
	n, err := strconv.Atoi(inner)
	if err != nil {
		return step{}, fmt.Errorf("unsupported subscript [%s]", inner)
	}
	return step{index: &n}, nil
}

func parseFilter(expr string, depth int) (*filter, error) {
	if !strings.HasPrefix(expr, "@") {
		return nil, fmt.Errorf("filter %q must start with @", expr)
	}
	path, rest, err := parseSteps(expr[1:], depth)
	if err != nil {
		return nil, err
	}
	rest = strings.TrimSpace(rest)
	if rest == "" {
		return &filter{path: path}, nil
	}
	for _, op := range []string{"==", "!=", "<=", ">=", "<", ">"} {
		if v, ok := strings.CutPrefix(rest, op); ok {
			lit, err := parseLiteral(strings.TrimSpace(v))
			if err != nil {
				return nil, err
			}
			return &filter{path: path, op: op, value: lit}, nil
		}
	}
	return nil, fmt.Errorf("unsupported filter %q", expr)
}

func parseLiteral(s string) (any, error) {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1], nil
	}
	switch s {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, fmt.Errorf("unsupported literal %q", s)
	}
	return f, nil
}

// Find returns every value path selects in obj, in document order
// (map wildcards in no particular order).
func (path JSONPath) Find(obj any) []any {
	cur := []any{obj}
	for _, s := range path {
		var next []any
		for _, v := range cur {
			next = s.apply(v, next)
		}
		if len(next) == 0 {
			return nil
		}
		cur = next
	}
	return cur
}

func (s step) apply(v any, out []any) []any {
	switch {
	case s.wildcard:
		switch v := v.(type) {
		case []any:
			return append(out, v...)
		case map[string]any:
			for _, e := range v {
				out = append(out, e)
			}
		}
	case s.index != nil:
		if a, ok := v.([]any); ok {
			i := *s.index
			if i < 0 {
				i += len(a)
			}
			if i >= 0 && i < len(a) {
				out = append(out, a[i])
			}
		}
	case s.filter != nil:
		a, _ := v.([]any)
		for _, e := range a {
			if s.filter.matches(e) {
				out = append(out, e)
			}
		}
	default:
		if m, ok := v.(map[string]any); ok {
			if e, ok := m[s.field]; ok {
				out = append(out, e)
			}
		}
	}
	return out
}

func (f *filter) matches(e any) bool {
	for _, v := range f.path.Find(e) {
		if f.op == "" || compare(v, f.op, f.value) {
			return true
		}
	}
	return false
}

func compare(v any, op string, lit any) bool {
	switch lit := lit.(type) {
	case string:
		s, ok := v.(string)
		return ok && ordered(strings.Compare(s, lit), op)
	case bool:
		b, ok := v.(bool)
		return ok && (op == "==" && b == lit || op == "!=" && b != lit)
	case float64:
		var f float64
		switch n := v.(type) {
		case int64:
			f = float64(n)
		case float64:
			f = n
		default:
			return false
		}
		c := 0
		if f < lit {
			c = -1
		} else if f > lit {
			c = 1
		}
		return ordered(c, op)
	}
	return false
}

func ordered(c int, op string) bool {
	switch op {
	case "==":
		return c == 0
	case "!=":
		return c != 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	}
	return false
}
