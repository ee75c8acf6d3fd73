package cron

import (
	"testing"
	"time"
)

// FuzzParse checks that no schedule makes Parse panic, and that what
// it accepts fires after the time given, on a whole second (a whole
// minute for five-field schedules), or never.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"* * * * *", "*/5 1-3 1,15 jan-mar mon", "@hourly", "@every 1h", "TZ=UTC 0 0 * * *",
		"CRON_TZ=America/New_York 30 2 * * *", "CRON_TZ=UTC", "TZ=", "1/2/3 * * * *", "*-x * * * *", ", ? * * *",
	} {
		f.Add(seed, int64(1741500000))
	}
	f.Fuzz(func(t *testing.T, spec string, unix int64) {
		s, err := Parse(spec)
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("Parse(%q) error %T, want *ParseError", spec, err)
			}
			return
		}
		// Keep the time within years time.Date handles plainly.
		at := time.Unix(unix%(1<<34), 0).UTC()
		next := s.Next(at)
		if next.IsZero() {
			return
		}
		if !next.After(at) {
			t.Fatalf("%q: Next(%v) = %v, not after", spec, at, next)
		}
		if next.Nanosecond() != 0 {
			t.Fatalf("%q: Next(%v) = %v, not a whole second", spec, at, next)
		}
		if _, ok := s.(*Spec); ok && next.Second() != 0 {
			t.Fatalf("%q: Next(%v) = %v, not a whole minute", spec, at, next)
		}
	})
}
