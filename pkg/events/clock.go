package events

import "time"

// Clock is where the recorder reads time: Event timestamps, the spam
// filter's refills, the aggregation window and retry waits. Tests inject
// one so those decisions do not depend on how fast the test runs.
type Clock interface {
	Now() time.Time
	NewTimer(d time.Duration) Timer
}

// Timer is the part of *time.Timer the recorder uses.
type Timer interface {
	C() <-chan time.Time
	Stop() bool
}

// RealClock is the machine's clock, the default.
type RealClock struct{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// NewTimer returns a time.Timer.
func (RealClock) NewTimer(d time.Duration) Timer { return realTimer{time.NewTimer(d)} }

type realTimer struct{ t *time.Timer }

func (t realTimer) C() <-chan time.Time { return t.t.C }
func (t realTimer) Stop() bool          { return t.t.Stop() }
