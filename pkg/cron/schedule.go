package cron

import "time"

// Schedule says when a parsed schedule fires.
type Schedule interface {
	// Next is the first activation strictly after t, in t's location,
	// or the zero time when there is none within five years.
	Next(t time.Time) time.Time
}

// anyBit marks a field given as "*" or "?" (without a step above 1),
// which changes how the two day fields combine.
const anyBit uint64 = 1 << 63

// Spec is a five-field schedule: a bit set of the values each field
// matches. Activations fall on whole minutes.
type Spec struct {
	minute, hour, dom, month, dow uint64

	// Location is the zone the fields are read in; nil reads them in
	// the location of the time given to Next.
	Location *time.Location
}

// searchYears bounds Next's search: a schedule that names a day no
// month has ("0 0 31 2 *") never fires.
const searchYears = 5

// Next steps from t to the next matching month, then day, hour and
// minute, starting a unit over whenever a larger unit rolls over. The
// steps are robfig/cron/v3's, daylight-saving quirks included: a wall
// time skipped by a spring-forward transition does not fire that day,
// and one repeated by a fall-back transition fires at each of its two
// instants.
func (s *Spec) Next(t time.Time) time.Time {
	orig := t.Location()
	if s.Location != nil {
		t = t.In(s.Location)
	}
	loc := t.Location()
	// Activations are on whole seconds after t.
	t = t.Add(time.Second - time.Duration(t.Nanosecond()))
	limit := t.Year() + searchYears
	// truncated is set once t has been cut to the start of a unit;
	// until then t keeps its smaller units (the first candidate may
	// be t itself).
	truncated := false
	truncate := func(to time.Time) {
		if !truncated {
			truncated = true
			t = to
		}
	}
search:
	for {
		if t.Year() > limit {
			return time.Time{}
		}
		for !has(s.month, int(t.Month())) {
			truncate(time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, loc))
			t = t.AddDate(0, 1, 0)
			if t.Month() == time.January {
				continue search
			}
		}
		for !s.dayMatches(t) {
			truncate(time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, loc))
			t = t.AddDate(0, 0, 1)
			// A day that does not start at midnight (a transition at
			// midnight) is brought back to its nearest midnight.
			if h := t.Hour(); h > 12 {
				t = t.Add(time.Duration(24-h) * time.Hour)
			} else if h != 0 {
				t = t.Add(-time.Duration(h) * time.Hour)
			}
			if t.Day() == 1 {
				continue search
			}
		}
		for !has(s.hour, t.Hour()) {
			truncate(time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), 0, 0, 0, loc))
			t = t.Add(time.Hour)
			if t.Hour() == 0 {
				continue search
			}
		}
		for !has(s.minute, t.Minute()) {
			truncate(t.Truncate(time.Minute))
			t = t.Add(time.Minute)
			if t.Minute() == 0 {
				continue search
			}
		}
		// Seconds: only :00 fires.
		for t.Second() != 0 {
			truncate(t.Truncate(time.Second))
			t = t.Add(time.Second)
			if t.Second() == 0 {
				continue search
			}
		}
		return t.In(orig)
	}
}

func has(bits uint64, v int) bool { return bits&(1<<uint(v)) != 0 }

// dayMatches combines the two day fields as Vixie cron does: both must
// match when either is a star, else either suffices.
func (s *Spec) dayMatches(t time.Time) bool {
	dom, dow := has(s.dom, t.Day()), has(s.dow, int(t.Weekday()))
	if s.dom&anyBit != 0 || s.dow&anyBit != 0 {
		return dom && dow
	}
	return dom || dow
}

// Every is "@every <duration>": activations a fixed delay apart.
type Every struct {
	Delay time.Duration // whole seconds, at least one
}

// NewEvery rounds d as robfig does: down to whole seconds, at least
// one second.
func NewEvery(d time.Duration) Every {
	if d < time.Second {
		d = time.Second
	}
	return Every{Delay: d - d%time.Second}
}

// Next is t plus the delay, on a whole second.
func (e Every) Next(t time.Time) time.Time {
	return t.Add(e.Delay - time.Duration(t.Nanosecond()))
}
