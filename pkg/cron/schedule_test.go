package cron

import (
	"testing"
	"time"
)

func mustLoad(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// TestNext checks activations, each followed by the next one, against
// those robfig/cron/v3 gives (recorded from it).
func TestNext(t *testing.T) {
	utc := time.UTC
	ny := mustLoad(t, "America/New_York")
	lordHowe := mustLoad(t, "Australia/Lord_Howe")
	d := func(loc *time.Location, y int, m time.Month, day, h, min, s int) time.Time {
		return time.Date(y, m, day, h, min, s, 0, loc)
	}
	for _, tc := range []struct {
		name, spec string
		after      time.Time
		want       []time.Time
	}{
		{"every minute", "* * * * *", d(utc, 2025, 1, 1, 10, 0, 30),
			[]time.Time{d(utc, 2025, 1, 1, 10, 1, 0), d(utc, 2025, 1, 1, 10, 2, 0)}},
		{"on a minute boundary, the next one", "* * * * *", d(utc, 2025, 1, 1, 10, 0, 0),
			[]time.Time{d(utc, 2025, 1, 1, 10, 1, 0)}},
		{"steps", "*/15 * * * *", d(utc, 2025, 1, 1, 10, 50, 0),
			[]time.Time{d(utc, 2025, 1, 1, 11, 0, 0), d(utc, 2025, 1, 1, 11, 15, 0)}},
		{"start and step run to the maximum", "50/5 * * * *", d(utc, 2025, 1, 1, 10, 51, 0),
			[]time.Time{d(utc, 2025, 1, 1, 10, 55, 0), d(utc, 2025, 1, 1, 11, 50, 0)}},
		{"list and names", "0 9 * jan,jul mon", d(utc, 2025, 1, 31, 12, 0, 0),
			[]time.Time{d(utc, 2025, 7, 7, 9, 0, 0), d(utc, 2025, 7, 14, 9, 0, 0)}},
		{"weekdays only", "30 8 * * mon-fri", d(utc, 2025, 1, 3, 9, 0, 0),
			[]time.Time{d(utc, 2025, 1, 6, 8, 30, 0)}},
		{"day of month or day of week", "0 0 13 * fri", d(utc, 2025, 6, 1, 0, 0, 0),
			[]time.Time{d(utc, 2025, 6, 6, 0, 0, 0), d(utc, 2025, 6, 13, 0, 0, 0), d(utc, 2025, 6, 20, 0, 0, 0)}},
		{"a star day of month needs both", "0 0 * * fri", d(utc, 2025, 6, 1, 0, 0, 0),
			[]time.Time{d(utc, 2025, 6, 6, 0, 0, 0), d(utc, 2025, 6, 13, 0, 0, 0)}},
		{"a stepped star is no star", "0 0 */1 * fri", d(utc, 2025, 6, 1, 0, 0, 0),
			[]time.Time{d(utc, 2025, 6, 6, 0, 0, 0)}},
		{"a stepped star above 1 is no star", "0 0 */2 * fri", d(utc, 2025, 6, 1, 0, 0, 0),
			[]time.Time{d(utc, 2025, 6, 3, 0, 0, 0), d(utc, 2025, 6, 5, 0, 0, 0), d(utc, 2025, 6, 6, 0, 0, 0)}},
		{"leap day", "0 0 29 2 *", d(utc, 2025, 1, 1, 0, 0, 0),
			[]time.Time{d(utc, 2028, 2, 29, 0, 0, 0), d(utc, 2032, 2, 29, 0, 0, 0)}},
		{"never", "0 0 30 2 *", d(utc, 2025, 1, 1, 0, 0, 0), []time.Time{{}}},
		{"an empty list never fires", ", * * * *", d(utc, 2025, 1, 1, 0, 0, 0), []time.Time{{}}},
		{"@yearly", "@yearly", d(utc, 2025, 3, 1, 0, 0, 0), []time.Time{d(utc, 2026, 1, 1, 0, 0, 0)}},
		{"@monthly", "@monthly", d(utc, 2025, 3, 1, 0, 0, 0), []time.Time{d(utc, 2025, 4, 1, 0, 0, 0)}},
		{"@weekly is Sunday", "@weekly", d(utc, 2025, 3, 1, 0, 0, 0), []time.Time{d(utc, 2025, 3, 2, 0, 0, 0)}},
		{"@daily", "@daily", d(utc, 2025, 3, 1, 0, 0, 0), []time.Time{d(utc, 2025, 3, 2, 0, 0, 0)}},
		{"@hourly", "@hourly", d(utc, 2025, 3, 1, 0, 59, 59), []time.Time{d(utc, 2025, 3, 1, 1, 0, 0)}},
		{"@every", "@every 1m30s", time.Date(2025, 3, 1, 0, 0, 0, 500, utc),
			[]time.Time{d(utc, 2025, 3, 1, 0, 1, 30), d(utc, 2025, 3, 1, 0, 3, 0)}},
		{"@every under a second is a second", "@every 10ms", d(utc, 2025, 3, 1, 0, 0, 0),
			[]time.Time{d(utc, 2025, 3, 1, 0, 0, 1)}},
		{"no zone: the time's location", "0 9 * * *", d(ny, 2025, 1, 1, 10, 0, 0),
			[]time.Time{d(ny, 2025, 1, 2, 9, 0, 0)}},
		{"a zone, answered in the time's location", "TZ=Asia/Tokyo 0 9 * * *", d(utc, 2025, 1, 1, 0, 0, 0),
			[]time.Time{d(utc, 2025, 1, 2, 0, 0, 0), d(utc, 2025, 1, 3, 0, 0, 0)}},
		{"TZ=Local is no zone", "TZ=Local 0 9 * * *", d(ny, 2025, 1, 1, 10, 0, 0),
			[]time.Time{d(ny, 2025, 1, 2, 9, 0, 0)}},

		// Daylight saving time in New York: 02:00 EST became 03:00
		// EDT on 2025-03-09; 02:00 EDT became 01:00 EST on 2025-11-02.
		{"spring forward skips the missing time that day", "CRON_TZ=America/New_York 30 2 * * *", d(ny, 2025, 3, 8, 3, 0, 0),
			[]time.Time{d(ny, 2025, 3, 10, 2, 30, 0), d(ny, 2025, 3, 11, 2, 30, 0)}},
		{"spring forward, hourly", "CRON_TZ=America/New_York 0 * * * *", d(ny, 2025, 3, 9, 1, 0, 0),
			[]time.Time{d(ny, 2025, 3, 9, 3, 0, 0), d(ny, 2025, 3, 9, 4, 0, 0)}},
		{"spring forward, half-hourly", "CRON_TZ=America/New_York */30 * * * *", d(ny, 2025, 3, 9, 1, 45, 0),
			[]time.Time{d(ny, 2025, 3, 9, 3, 0, 0), d(ny, 2025, 3, 9, 3, 30, 0)}},
		{"midnight around spring forward", "CRON_TZ=America/New_York 0 0 * * *", d(ny, 2025, 3, 8, 12, 0, 0),
			[]time.Time{d(ny, 2025, 3, 9, 0, 0, 0), d(ny, 2025, 3, 10, 0, 0, 0)}},
		{"fall back fires at both instants of a repeated time", "CRON_TZ=America/New_York 30 1 * * *", d(ny, 2025, 11, 2, 1, 10, 0),
			[]time.Time{
				time.Date(2025, 11, 2, 5, 30, 0, 0, utc).In(ny), // 01:30 EDT
				time.Date(2025, 11, 2, 6, 30, 0, 0, utc).In(ny), // 01:30 EST
				d(ny, 2025, 11, 3, 1, 30, 0),
			}},
		// Lord Howe moves by half an hour: 02:00 became 02:30 on
		// 2025-10-05; 02:00 became 01:30 on 2025-04-06.
		{"half-hour spring forward", "CRON_TZ=Australia/Lord_Howe 15 2 * * *", d(lordHowe, 2025, 10, 4, 12, 0, 0),
			[]time.Time{d(lordHowe, 2025, 10, 6, 2, 15, 0)}},
		{"half-hour fall back", "CRON_TZ=Australia/Lord_Howe 45 1 * * *", d(lordHowe, 2025, 4, 6, 0, 0, 0),
			[]time.Time{
				time.Date(2025, 4, 5, 14, 45, 0, 0, utc).In(lordHowe), // 01:45 +11:00
				time.Date(2025, 4, 5, 15, 15, 0, 0, utc).In(lordHowe), // 01:45 +10:30
			}},
		// Havana's clocks went from 00:00 to 01:00 on 2025-03-09: that
		// day has no midnight.
		{"a day without midnight", "CRON_TZ=America/Havana 0 0 * * *", d(utc, 2025, 3, 8, 12, 0, 0),
			[]time.Time{d(utc, 2025, 3, 10, 4, 0, 0), d(utc, 2025, 3, 11, 4, 0, 0)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse(tc.spec)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.spec, err)
			}
			at := tc.after
			for i, want := range tc.want {
				got := s.Next(at)
				if !got.Equal(want) {
					t.Fatalf("activation %d after %v = %v, want %v", i, at, got, want)
				}
				if !got.IsZero() && got.Location() != tc.after.Location() {
					t.Errorf("activation %d in %v, want %v", i, got.Location(), tc.after.Location())
				}
				at = got
			}
		})
	}
}

func TestSpecLocation(t *testing.T) {
	s, err := Parse("0 9 * * *")
	if err != nil {
		t.Fatal(err)
	}
	spec := s.(*Spec)
	// The controller sets the CronJob's spec.timeZone this way.
	spec.Location = mustLoad(t, "Asia/Tokyo")
	got := s.Next(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	if want := time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("Next = %v, want %v", got, want)
	}
}
