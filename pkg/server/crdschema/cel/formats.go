package cel

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// String formats become CEL timestamps and durations. They are parsed the
// way kube's OpenAPI validation (kube-openapi's strfmt) accepts them, so that
// a value the schema accepted is never a CEL error.

// parseDateTime accepts RFC 3339 with any fraction of a second and, like
// strfmt, a local time without zone (taken as UTC); "" is the Unix epoch.
func parseDateTime(s string) (time.Time, error) {
	if s == "" {
		return time.Unix(0, 0).UTC(), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err == nil {
		return t, nil
	}
	if t, err2 := time.Parse("2006-01-02T15:04:05", s); err2 == nil {
		return t, nil
	}
	return time.Time{}, err
}

func parseDate(s string) (time.Time, error) {
	return time.Parse(time.DateOnly, s)
}

// durationUnits are the units strfmt accepts besides Go's own syntax: the
// first spelling is exact, the last also matches as a prefix ("3 hours").
var durationUnits = []struct {
	unit      time.Duration
	spellings []string
}{
	{time.Nanosecond, []string{"ns", "nano"}},
	{time.Microsecond, []string{"us", "µs", "micro"}},
	{time.Millisecond, []string{"ms", "milli"}},
	{time.Second, []string{"s", "sec"}},
	{time.Minute, []string{"m", "min"}},
	{time.Hour, []string{"h", "hr", "hour"}},
	{24 * time.Hour, []string{"d", "day"}},
	{7 * 24 * time.Hour, []string{"w", "wk", "week"}},
}

var durationPart = regexp.MustCompile(`(\d+)\s*([A-Za-zµ]+)`)

// parseDuration accepts Go durations ("1h30m") and strfmt's longer forms
// ("3d", "2 weeks", "1 hour 30 min").
func parseDuration(s string) (time.Duration, error) {
	if d, err := time.ParseDuration(s); err == nil {
		return d, nil
	}
	var d time.Duration
	ok := false
	for _, m := range durationPart.FindAllStringSubmatch(s, -1) {
		n, err := strconv.Atoi(m[1])
		if err != nil {
			return 0, err
		}
		unit := strings.ToLower(m[2])
		for _, u := range durationUnits {
			last := len(u.spellings) - 1
			for i, sp := range u.spellings {
				if unit == sp || (i == last && strings.HasPrefix(unit, sp)) {
					ok = true
					d += time.Duration(n) * u.unit
				}
			}
		}
	}
	if !ok {
		return 0, fmt.Errorf("unable to parse %s as duration", s)
	}
	return d, nil
}
