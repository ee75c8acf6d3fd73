package cron

import (
	"errors"
	"testing"
	"time"
)

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		spec, want string
	}{
		{"", "empty spec string"},
		{"x", "expected exactly 5 fields, found 1: [x]"},
		{"   ", "expected exactly 5 fields, found 0: []"},
		{"* * * * * *", "expected exactly 5 fields, found 6: [* * * * * *]"},
		{"60 * * * *", "end of range (60) above maximum (59): 60"},
		{"* 24 * * *", "end of range (24) above maximum (23): 24"},
		{"* * 0 * *", "beginning of range (0) below minimum (1): 0"},
		{"* * 32 * *", "end of range (32) above maximum (31): 32"},
		{"* * * 13 *", "end of range (13) above maximum (12): 13"},
		{"* * * * 7", "end of range (7) above maximum (6): 7"},
		{"5-1 * * * *", "beginning of range (5) beyond end of range (1): 5-1"},
		{"*/0 * * * *", "step of range should be a positive number: */0"},
		{"*/-1 * * * *", "negative number (-1) not allowed: -1"},
		{"1-2-3 * * * *", "too many hyphens: 1-2-3"},
		{"1/2/3 * * * *", "too many slashes: 1/2/3"},
		// The range is read before the slashes are counted.
		{"a/2/3 * * * *", `failed to parse int from a: strconv.Atoi: parsing "a": invalid syntax`},
		{"* * * foo *", `failed to parse int from foo: strconv.Atoi: parsing "foo": invalid syntax`},
		// Month names are not weekday names.
		{"* * * * jan", `failed to parse int from jan: strconv.Atoi: parsing "jan": invalid syntax`},
		{"@often", "unrecognized descriptor: @often"},
		{"@hourly ", "unrecognized descriptor: @hourly "},
		{"@every x", `failed to parse duration @every x: time: invalid duration "x"`},
		{"TZ=Nowhere/Land * * * * *", "provided bad location Nowhere/Land: unknown time zone Nowhere/Land"},
		{"CRON_TZ=UTC", "expected exactly 5 fields, found 0: []"},
		{"TZ=UTC * * *", "expected exactly 5 fields, found 3: [* * *]"},
		// The first bad field is the one reported.
		{"99 99 * * *", "end of range (99) above maximum (59): 99"},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			_, err := Parse(tc.spec)
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse(%q) = %v, want a *ParseError", tc.spec, err)
			}
			if got := err.Error(); got != tc.want {
				t.Errorf("Parse(%q) error\n got %s\nwant %s", tc.spec, got, tc.want)
			}
			if pe.Spec != tc.spec {
				t.Errorf("ParseError.Spec = %q, want %q", pe.Spec, tc.spec)
			}
		})
	}
}

func TestParseAccepts(t *testing.T) {
	for _, spec := range []string{
		"* * * * *", "? ? ? ? ?", "*/1 * * * *", "0 0 1 1 0", "59 23 31 12 6",
		"0-59/15 9-17 * jan-MAR mon-fri", "1,,2 * * * *", ", * * * *", "+5 * * * *",
		"*-3 * * * *", "5/10 * * * *", "@yearly", "@annually", "@monthly", "@weekly",
		"@daily", "@midnight", "@hourly", "@every 90s", "@every -1s",
		"CRON_TZ=Europe/Paris 0 8 * * *", "TZ=UTC @daily", "TZ=Local  0 * * * *", "  0\t0  * * *  ",
	} {
		if _, err := Parse(spec); err != nil {
			t.Errorf("Parse(%q) = %v, want no error", spec, err)
		}
	}
}

func TestBadLocationUnwraps(t *testing.T) {
	_, err := Parse("TZ=Nowhere/Land * * * * *")
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Unwrap() == nil {
		t.Fatalf("Parse error %v does not wrap the time zone's error", err)
	}
	if _, err := time.LoadLocation("Nowhere/Land"); err == nil || errors.Unwrap(pe).Error() != err.Error() {
		t.Errorf("wrapped %v, want %v", errors.Unwrap(pe), err)
	}
}
