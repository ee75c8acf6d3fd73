package cron

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseError is a schedule the parser refuses. Its message is the one
// robfig/cron/v3 gives, which kube-apiserver puts in its 422 after
// `spec.schedule: Invalid value: "<schedule>": `.
type ParseError struct {
	Spec string // the whole schedule as given
	msg  string
	err  error // the time zone's error, for a bad location
}

func (e *ParseError) Error() string { return e.msg }

func (e *ParseError) Unwrap() error { return e.err }

func refuse(spec, format string, args ...any) *ParseError {
	return &ParseError{Spec: spec, msg: fmt.Sprintf(format, args...)}
}

// field is one of a schedule's five positions: its bounds and the
// names it accepts besides numbers.
type field struct {
	min, max uint
	names    map[string]uint
}

var (
	minutes  = field{min: 0, max: 59}
	hours    = field{min: 0, max: 23}
	monthDay = field{min: 1, max: 31}
	months   = field{min: 1, max: 12, names: map[string]uint{
		"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
		"jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
	}}
	weekDay = field{min: 0, max: 6, names: map[string]uint{
		"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6,
	}}
)

// Parse reads a schedule as Kubernetes does (robfig/cron/v3's
// ParseStandard): an optional CRON_TZ= or TZ= prefix, then five fields
// or a descriptor.
func Parse(spec string) (Schedule, error) {
	if spec == "" {
		return nil, refuse(spec, "empty spec string")
	}
	rest := spec
	var loc *time.Location
	if strings.HasPrefix(rest, "TZ=") || strings.HasPrefix(rest, "CRON_TZ=") {
		zone, after, _ := strings.Cut(rest[strings.Index(rest, "=")+1:], " ")
		// robfig panics on a prefix with nothing after it; that is
		// read here as a schedule of no fields.
		l, err := time.LoadLocation(zone)
		if err != nil {
			return nil, &ParseError{Spec: spec, msg: fmt.Sprintf("provided bad location %s: %v", zone, err), err: err}
		}
		// LoadLocation("Local") is the process's own zone, which
		// robfig takes as no zone at all.
		if l != time.Local {
			loc = l
		}
		rest = strings.TrimSpace(after)
	}
	if strings.HasPrefix(rest, "@") {
		return descriptor(spec, rest, loc)
	}
	fields := strings.Fields(rest)
	if len(fields) != 5 {
		return nil, refuse(spec, "expected exactly 5 fields, found %d: %s", len(fields), fields)
	}
	s := &Spec{Location: loc}
	for i, f := range []struct {
		into *uint64
		of   field
	}{{&s.minute, minutes}, {&s.hour, hours}, {&s.dom, monthDay}, {&s.month, months}, {&s.dow, weekDay}} {
		bits, err := f.of.parse(spec, fields[i])
		if err != nil {
			return nil, err
		}
		*f.into = bits
	}
	return s, nil
}

// parse turns one field, a comma-separated list, into its bit set.
// Empty list items are skipped, so "," is a field that never matches.
func (f field) parse(spec, list string) (uint64, error) {
	var bits uint64
	for _, item := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' }) {
		b, err := f.item(spec, item)
		if err != nil {
			return 0, err
		}
		bits |= b
	}
	return bits, nil
}

// item reads "*", "?", "a" or "a-b", with an optional "/step".
func (f field) item(spec, expr string) (uint64, error) {
	span, stepText, hasStep := strings.Cut(expr, "/")
	ends := strings.Split(span, "-")
	var lo, hi uint
	var star uint64
	if ends[0] == "*" || ends[0] == "?" {
		// Whatever follows a star's hyphen is ignored, as robfig does.
		lo, hi, star = f.min, f.max, anyBit
	} else {
		var err error
		if lo, err = f.number(spec, ends[0]); err != nil {
			return 0, err
		}
		switch len(ends) {
		case 1:
			hi = lo
		case 2:
			if hi, err = f.number(spec, ends[1]); err != nil {
				return 0, err
			}
		default:
			return 0, refuse(spec, "too many hyphens: %s", expr)
		}
	}
	step := uint(1)
	if strings.Contains(stepText, "/") {
		// Checked after the range, so a bad range is reported first.
		return 0, refuse(spec, "too many slashes: %s", expr)
	}
	if hasStep {
		var err error
		if step, err = field.number(field{}, spec, stepText); err != nil {
			return 0, err
		}
		if len(ends) == 1 {
			// "a/n" runs from a to the field's maximum.
			hi = f.max
		}
		if step > 1 {
			star = 0
		}
	}
	switch {
	case lo < f.min:
		return 0, refuse(spec, "beginning of range (%d) below minimum (%d): %s", lo, f.min, expr)
	case hi > f.max:
		return 0, refuse(spec, "end of range (%d) above maximum (%d): %s", hi, f.max, expr)
	case lo > hi:
		return 0, refuse(spec, "beginning of range (%d) beyond end of range (%d): %s", lo, hi, expr)
	case step == 0:
		return 0, refuse(spec, "step of range should be a positive number: %s", expr)
	}
	var bits uint64
	for v := lo; v <= hi; v += step {
		bits |= 1 << v
	}
	return bits | star, nil
}

// number reads a name of the field or a non-negative decimal (with an
// optional "+", as strconv.Atoi allows).
func (f field) number(spec, s string) (uint, error) {
	if v, ok := f.names[strings.ToLower(s)]; ok {
		return v, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, &ParseError{Spec: spec, msg: fmt.Sprintf("failed to parse int from %s: %s", s, err), err: err}
	}
	if n < 0 {
		return 0, refuse(spec, "negative number (%d) not allowed: %s", n, s)
	}
	return uint(n), nil
}

// descriptor reads the "@" forms. Only exact names are known: no
// trailing blanks, no other case.
func descriptor(spec, d string, loc *time.Location) (Schedule, error) {
	every := func(f field) uint64 { return bitsOf(f.min, f.max) | anyBit }
	s := &Spec{Location: loc, minute: 1 << 0, hour: 1 << 0, dom: every(monthDay), month: every(months), dow: every(weekDay)}
	switch d {
	case "@yearly", "@annually":
		s.dom, s.month = 1<<1, 1<<1
	case "@monthly":
		s.dom = 1 << 1
	case "@weekly":
		s.dow = 1 << 0
	case "@daily", "@midnight":
	case "@hourly":
		s.hour = every(hours)
	default:
		text, ok := strings.CutPrefix(d, "@every ")
		if !ok {
			return nil, refuse(spec, "unrecognized descriptor: %s", d)
		}
		dur, err := time.ParseDuration(text)
		if err != nil {
			return nil, &ParseError{Spec: spec, msg: fmt.Sprintf("failed to parse duration %s: %s", d, err), err: err}
		}
		return NewEvery(dur), nil
	}
	return s, nil
}

func bitsOf(lo, hi uint) uint64 {
	var bits uint64
	for v := lo; v <= hi; v++ {
		bits |= 1 << v
	}
	return bits
}
