package cel

import (
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/setpoint-dev/setpoint/pkg/server/crdschema"
)

// A rule's fieldPath moves its error from the node the rule sits on to a
// field below it, written as in kube: ".spec.replicas", ".labels['app']",
// "['dotted.name']". It must name properties the schema declares (or keys of
// a map), so it is checked when the CRD is written.

// parseFieldPath returns the path fieldPath denotes, relative to the node of
// schema node s.
func parseFieldPath(fieldPath string, s *crdschema.Node) (*field.Path, error) {
	var p *field.Path
	step := func(name string) error {
		switch {
		case s == nil:
			return errors.New("does not refer to a valid field")
		case s.NumProperties() > 0:
			child := s.PropertyNamed(name)
			if child == nil {
				return errors.New("does not refer to a valid field")
			}
			p, s = childPath(p, name), child
		case s.HasAdditionalProperties():
			p, s = keyPath(p, name), s.AdditionalProperties()
		default:
			return errors.New("does not refer to a valid field")
		}
		return nil
	}
	rest := fieldPath
	for rest != "" {
		switch rest[0] {
		case '.':
			rest = rest[1:]
			n := strings.IndexAny(rest, ".[]")
			if n < 0 {
				n = len(rest)
			}
			if n == 0 {
				return nil, errors.New("unexpected end of JSON path")
			}
			if err := step(rest[:n]); err != nil {
				return nil, err
			}
			rest = rest[n:]
		case '[':
			rest = rest[1:]
			if rest == "" {
				return nil, errors.New("unexpected end of JSON path")
			}
			end := quotedEnd(rest)
			if end < 0 {
				tok := rest
				if n := strings.IndexAny(rest, ".[]"); n >= 0 {
					tok = rest[:n]
				}
				return nil, fmt.Errorf("expected single quoted string but got %s", tok)
			}
			name, err := unquote(rest[1:end])
			if err != nil {
				return nil, fmt.Errorf("invalid string literal: %w", err)
			}
			if err := step(name); err != nil {
				return nil, err
			}
			rest = rest[end+1:]
			if rest == "" {
				return nil, errors.New("unexpected end of JSON path")
			}
			if rest[0] != ']' {
				return nil, fmt.Errorf("expected ] but got %c", rest[0])
			}
			rest = rest[1:]
		default:
			tok := rest
			if n := strings.IndexAny(rest, ".[]"); n > 0 {
				tok = rest[:n]
			}
			return nil, fmt.Errorf("expected [ or . but got: %s", tok)
		}
	}
	return p, nil
}

// quotedEnd returns the index of the quote closing the single-quoted string
// s starts with, or -1.
func quotedEnd(s string) int {
	if s[0] != '\'' {
		return -1
	}
	for i := 1; i < len(s); i++ {
		if s[i] == '\'' && s[i-1] != '\\' {
			return i
		}
	}
	return -1
}

func unquote(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 == len(s) {
			return "", errors.New(`invalid escape char \`)
		}
		i++
		switch s[i] {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\'', '\\':
			b.WriteByte(s[i])
		default:
			return "", fmt.Errorf(`invalid escape char \%c`, s[i])
		}
	}
	return b.String(), nil
}

func childPath(p *field.Path, name string) *field.Path {
	if p == nil {
		return field.NewPath(name)
	}
	return p.Child(name)
}

func keyPath(p *field.Path, key string) *field.Path {
	if p == nil {
		return (*field.Path)(nil).Key(key)
	}
	return p.Key(key)
}
