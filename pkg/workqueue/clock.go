package workqueue

import "time"

// Clock is the queue's source of time. It is injected so that tests of
// delays, rate limits and aging are deterministic; production code leaves
// it nil and gets the real clock.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine once d has elapsed.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is the part of *time.Timer the queue uses to wake delayed items.
type Timer interface {
	Stop() bool
	Reset(d time.Duration) bool
}

// RealClock is the wall clock, the default when no Clock is given.
type RealClock struct{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// AfterFunc is time.AfterFunc.
func (RealClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

func clockOrReal(c Clock) Clock {
	if c == nil {
		return RealClock{}
	}
	return c
}
