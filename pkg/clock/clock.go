// Package clock is the time source the runtime's long-running parts
// take (reflectors, informers, the event recorder, leader election), so
// that tests can inject time and every decision that depends on it is
// deterministic. Code under testing/synctest can use Real: its time is
// already virtual there.
package clock

import "time"

// Clock tells the time and makes timers.
type Clock interface {
	Now() time.Time
	NewTimer(d time.Duration) Timer
}

// Timer is the part of *time.Timer the runtime uses.
type Timer interface {
	C() <-chan time.Time
	Stop() bool
}

// Real is the machine's clock.
type Real struct{}

// Now returns time.Now().
func (Real) Now() time.Time { return time.Now() }

// NewTimer returns a time.Timer.
func (Real) NewTimer(d time.Duration) Timer { return realTimer{time.NewTimer(d)} }

type realTimer struct{ t *time.Timer }

func (t realTimer) C() <-chan time.Time { return t.t.C }
func (t realTimer) Stop() bool          { return t.t.Stop() }
